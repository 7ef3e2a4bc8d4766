import sys

from epsilon_lab.command import main

sys.exit(main())
