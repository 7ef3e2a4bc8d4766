"""A page's settings as data (privlib.analyses.settings): every kind of value reads back unchanged
through a link and a settings file, and anything unusable is named — shortened — never fatal."""
from __future__ import annotations

import json

import pytest

from privlib.analyses import PAGES, analysis
from privlib.analyses.settings import FORMAT_KEY, MAX_FILE_BYTES, PageSettings, Setting, read_settings_file

SETTINGS = PageSettings("demo", "Demo page", command=None, settings=(
    Setting("epsilon", 10.0, "float", low=1e-300, high=1e300),
    Setting("samples", 100, "int", low=1, high=1000),
    Setting("exact", False, "bool"),
    Setting("mechanism", "laplace", "choice", choices=("laplace", "santext")),
    Setting("size", 1000, "choice", choices=(100, 1000, 10_000)),
    Setting("word", None, "text", optional=True, max_chars=20),
    Setting("epsilons", (0.5, 1.0, 2.0), "floats", low=1e-300),
))

UNUSUAL = {"epsilon": 0.1 + 0.2, "samples": 1000, "exact": True, "mechanism": "santext", "size": 10_000,
           "word": "naïve, = & ?", "epsilons": (1e-300, 0.30000000000000004, 7.0)}


def test_defaults_are_the_declared_values():
    assert SETTINGS.defaults() == {"epsilon": 10.0, "samples": 100, "exact": False, "mechanism": "laplace",
                                   "size": 1000, "word": None, "epsilons": (0.5, 1.0, 2.0)}


@pytest.mark.parametrize("values", [{}, UNUSUAL, {"word": ""}])
def test_a_link_reads_back_every_value_unchanged(values):
    full = SETTINGS.check(values)
    query = SETTINGS.to_query(full)
    assert all(isinstance(v, str) for v in query.values())
    read, problems = SETTINGS.from_query(query)
    assert problems == []
    assert read == full  # floats exactly: repr is the shortest text that reads back to the same float


@pytest.mark.parametrize("values", [{}, UNUSUAL])
def test_a_settings_file_reads_back_every_value_unchanged(values):
    full = SETTINGS.check(values)
    text = SETTINGS.to_json(full)
    assert json.loads(text)[FORMAT_KEY] == 1
    read, problems = SETTINGS.from_json(text)
    assert problems == []
    assert read == full
    assert SETTINGS.from_json(text.encode())[0] == full  # bytes, as an upload gives them


@pytest.mark.parametrize("name, value", [
    ("epsilon", "abc"), ("epsilon", "nan"), ("epsilon", "inf"), ("epsilon", "-1"), ("epsilon", "0"),
    ("samples", "2.5"), ("samples", "0"), ("samples", "1001"), ("samples", "9" * 500),
    ("exact", "maybe"), ("mechanism", "bogus"), ("size", "5"), ("word", "x" * 21), ("epsilons", "1,,x"),
    ("epsilons", ""),
])
def test_an_unusable_link_value_is_named_and_the_default_kept(name, value):
    read, problems = SETTINGS.from_query({name: value})
    assert read == {}
    assert len(problems) == 1
    assert name in problems[0] and "was ignored" in problems[0]
    assert len(problems[0]) < 300  # a long value is never repeated in full


def test_a_json_value_of_the_wrong_type_is_named():
    read, problems = SETTINGS.read({"samples": 2.5, "exact": "yes please", "epsilons": [1, "x"], "word": 3})
    assert read == {}
    assert [p.split(" = ")[0].split()[-1] for p in problems] == ["samples", "exact", "epsilons", "word"]


def test_an_unknown_setting_is_named_not_fatal():
    read, problems = SETTINGS.from_query({"epsilon": "2", "colour": "red"})
    assert read == {"epsilon": 2.0}
    assert problems == ["The link's 'colour' is not a setting of Demo page: ignored."]


def test_a_library_caller_gets_a_value_error():
    with pytest.raises(ValueError, match="no setting 'colour'"):
        SETTINGS.to_query({"colour": "red"})
    with pytest.raises(ValueError, match="samples"):
        SETTINGS.to_json({"samples": 0})


@pytest.mark.parametrize("text, message", [
    ("not json", "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "not"),  # deep nesting: no RecursionError
    ('{"epsilon_lab_settings": 1, "page": "demo", "settings": {"epsilon": NaN}}', "not valid JSON"),
    ('{"epsilon": 1}', "not an Epsilon Lab settings file"),
    ('{"epsilon_lab_settings": 2, "page": "demo", "settings": {}}', "format 2"),
    ('{"epsilon_lab_settings": 1, "page": "demo"}', "damaged"),
    ('{"epsilon_lab_settings": 1, "page": "other", "settings": {}}', "for the page 'other'"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b" " * (MAX_FILE_BYTES + 1), "at most 64 KB"),
])
def test_a_file_that_is_not_this_pages_settings_file_is_refused(text, message):
    with pytest.raises(ValueError, match=message) as caught:
        SETTINGS.from_json(text)
    assert len(str(caught.value)) < 200


def test_the_file_reader_returns_the_page_and_its_settings():
    assert read_settings_file(SETTINGS.to_json({"samples": 5})) == ("demo", {**{
        k: (list(v) if isinstance(v, tuple) else v) for k, v in SETTINGS.defaults().items()}, "samples": 5})


@pytest.mark.parametrize("page", PAGES)
def test_every_page_declares_settings_that_read_back(page):
    settings = analysis(page).SETTINGS
    assert settings.page == page
    defaults = settings.defaults()
    shared = {name: value for name, value in defaults.items() if not settings.by_name[name].private}
    assert settings.from_query(settings.to_query(defaults)) == (shared, [])  # never what the user typed
    assert settings.from_json(settings.to_json(defaults)) == (shared, [])
    assert settings.from_json(settings.to_json(defaults, include_private=True)) == (defaults, [])


def test_a_setting_declared_with_an_invalid_default_is_refused():
    with pytest.raises(ValueError, match="samples"):
        Setting("samples", 0, "int", low=1)
    with pytest.raises(ValueError, match="kind"):
        Setting("x", 1, "complex")
    with pytest.raises(ValueError, match="share a name"):
        PageSettings("p", "P", (Setting("a", 1, "int"), Setting("a", 2, "int")))


PRIVATE = PageSettings("typed", "Typed page", settings=(
    Setting("text", "default text", "text", private=True),
    Setting("mechanisms", ("a", "b"), "choices", choices=("a", "b", "c", "d"), high=3),
))


def test_a_private_setting_never_goes_into_a_link_and_into_a_file_only_when_asked():
    values = {"text": "MARKER-4711 my secret note", "mechanisms": ("c", "a")}
    assert "text" not in PRIVATE.to_query(values)
    assert "MARKER-4711" not in PRIVATE.to_json(values)
    assert PRIVATE.from_json(PRIVATE.to_json(values)) == ({"mechanisms": ("c", "a")}, [])
    assert PRIVATE.from_json(PRIVATE.to_json(values, include_private=True)) == (values, [])
    read, problems = PRIVATE.from_query({"text": "from a link"})
    assert read == {} and problems == ["A link never carries text: ignored."]


@pytest.mark.parametrize("value", ["a,e", "a,a", "a,b,c,d", "", ","])
def test_several_choices_must_be_known_distinct_and_few_enough(value):
    read, problems = PRIVATE.from_query({"mechanisms": value})
    assert read == {} and len(problems) == 1 and "at most 3 of a, b, c, d" in problems[0]


def test_a_mechanisms_parameters_become_settings_with_their_ranges():
    from privlib.analyses.settings import parameter_settings
    from privlib.words.mechanisms import MECHANISMS

    settings = {s.name: s for s in parameter_settings(MECHANISMS, prefix="p.")}
    assert settings["p.santext-plus.p"].default == 0.3 and settings["p.santext-plus.p"].kind == "float"
    assert settings["p.custext.k"].kind == "int" and settings["p.vickrey.base"].choices == ("cmp", "mahalanobis")
    with pytest.raises(ValueError):
        settings["p.santext-plus.p"].parse("1.5")  # the parameter's own range: 0 to 1
    assert len(settings) == sum(len(cls.PARAMETERS) for cls in MECHANISMS.values())
