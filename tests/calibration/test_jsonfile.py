"""The one reader of user-supplied JSON files: every failure names the file and the problem."""

import pytest

from calibration.jsonfile import JsonFileError, read_json_file


def test_reads_a_document(tmp_path):
    path = tmp_path / "clicks.json"
    path.write_text('{"P": {"NW": [1, 2]}}', encoding="utf-8")
    assert read_json_file(path, "clicks file") == {"P": {"NW": [1, 2]}}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{oops", "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        (b"", "not valid JSON: Expecting value at line 1 column 1"),
        (b"\xff\xd8\xff\xe0 a JPEG", "not text"),
    ],
)
def test_bad_content_names_file_and_problem(tmp_path, content, reason):
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    with pytest.raises(JsonFileError) as caught:
        read_json_file(path, "palette")
    assert str(caught.value).startswith(f"palette {path}: ")
    assert caught.value.reason.startswith(reason)


def test_missing_file(tmp_path):
    with pytest.raises(JsonFileError, match="cannot read it: No such file"):
        read_json_file(tmp_path / "nope.json", "calibration file")
