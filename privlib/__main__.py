import sys

from privlib.cli import main

sys.exit(main())
