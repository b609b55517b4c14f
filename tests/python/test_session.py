"""mlstudio.Session and get_execution_role: the studio home plays the bucket."""

import os
import stat

import pytest

import mlstudio
from mlstudio.session import studio_home


def test_execution_role_is_a_placeholder_arn():
    role = mlstudio.get_execution_role()
    assert role.startswith("arn:aws:iam::") and ":role/" in role


def test_home_follows_mlstudio_home(studio_home):
    assert studio_home == mlstudio.session.studio_home()


def test_home_defaults_to_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.delenv("MLSTUDIO_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert studio_home() == os.path.join(str(tmp_path), "mlstudio")


def test_default_bucket_is_a_private_folder_under_the_home(studio_home):
    bucket = mlstudio.Session().default_bucket()
    assert bucket.startswith(os.path.join(studio_home, "sdk", "buckets"))
    assert os.path.isdir(bucket)
    assert stat.S_IMODE(os.stat(bucket).st_mode) == 0o700


def test_upload_data_copies_a_file_and_returns_its_uri(studio_home, tmp_path):
    source = tmp_path / "train.csv"
    source.write_text("a,b\n1,2\n")
    uri = mlstudio.Session().upload_data(str(source), key_prefix="data/csv")
    assert uri.startswith("file://")
    copied = uri[len("file://"):]
    assert copied.endswith("data/csv/train.csv")
    with open(copied) as f:
        assert f.read() == "a,b\n1,2\n"


def test_upload_data_copies_a_folder(studio_home, tmp_path):
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "x.bin").write_bytes(b"\x00\x01")
    uri = mlstudio.Session(default_bucket="mine").upload_data(str(tmp_path / "set"))
    folder = uri[len("file://"):]
    assert "/buckets/mine/" in folder
    assert open(os.path.join(folder, "x.bin"), "rb").read() == b"\x00\x01"
    listed = mlstudio.Session(default_bucket="mine").download_data(
        str(tmp_path / "back"), "mine", key_prefix="data"
    )
    assert [os.path.basename(p) for p in listed] == ["x.bin"]


def test_upload_of_a_missing_path_names_it(studio_home, tmp_path):
    with pytest.raises(ValueError, match="path: .*nope does not exist"):
        mlstudio.Session().upload_data(str(tmp_path / "nope"))


def test_bucket_names_may_not_be_paths(studio_home):
    with pytest.raises(ValueError, match="default_bucket"):
        mlstudio.Session(default_bucket="../escape")


def test_submodules_import_lazily():
    assert mlstudio.__version__
    assert mlstudio.estimator.Estimator
    assert mlstudio.pytorch.PyTorch
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mlstudio.nothing
