"""``TrainingInput`` and ``FileSystemInput`` (``sagemaker.inputs``): a channel's data for
``fit(inputs=...)``. The studio reads local folders, so a channel is a path or a ``file://`` URI;
the other S3 options are accepted as SageMaker takes them and change nothing here.
"""

from ._util import absolute_path, shown, warn_once


class TrainingInput:
    """A channel: ``s3_data`` is a local path or ``file://`` URI here."""

    def __init__(
        self,
        s3_data,
        distribution=None,
        compression=None,
        content_type=None,
        record_wrapping=None,
        s3_data_type="S3Prefix",
        instance_groups=None,
        input_mode=None,
        attribute_names=None,
        target_attribute_name=None,
        shuffle_config=None,
        hub_access_config=None,
        model_access_config=None,
    ):
        self.s3_data = s3_data
        self.config = {
            "DataSource": {
                "S3DataSource": {
                    "S3DataType": s3_data_type,
                    "S3Uri": s3_data,
                    "S3DataDistributionType": distribution or "FullyReplicated",
                }
            }
        }
        ignored = {
            "distribution": distribution,
            "compression": compression,
            "content_type": content_type,
            "record_wrapping": record_wrapping,
            "instance_groups": instance_groups,
            "input_mode": input_mode,
            "attribute_names": attribute_names,
            "target_attribute_name": target_attribute_name,
            "shuffle_config": shuffle_config,
        }
        for name, value in ignored.items():
            if value is not None:
                warn_once(
                    "TrainingInput." + name,
                    "TrainingInput({}=...): every rank reads the channel's folder as it is; "
                    "this changes nothing on the studio".format(name),
                )

    def __repr__(self):
        return "TrainingInput({!r})".format(self.s3_data)


class FileSystemInput:
    """A file-system channel (EFS/FSx on SageMaker): ``directory_path`` is a local folder."""

    def __init__(
        self,
        file_system_id,
        file_system_type,
        directory_path,
        file_system_access_mode="ro",
        content_type=None,
    ):
        self.file_system_id = file_system_id
        self.file_system_type = file_system_type
        self.directory_path = directory_path
        self.file_system_access_mode = file_system_access_mode
        self.config = {
            "DataSource": {
                "FileSystemDataSource": {
                    "FileSystemId": file_system_id,
                    "FileSystemType": file_system_type,
                    "DirectoryPath": directory_path,
                    "FileSystemAccessMode": file_system_access_mode,
                }
            }
        }

    def __repr__(self):
        return "FileSystemInput({!r})".format(self.directory_path)


def channel_path(channel, value):
    """The absolute local path of one channel's value (str, TrainingInput, FileSystemInput),
    or a ValueError naming ``inputs.<channel>``."""
    path = "inputs.{}".format(channel)
    if isinstance(value, TrainingInput):
        value = value.s3_data
    elif isinstance(value, FileSystemInput):
        value = value.directory_path
    elif isinstance(value, dict) and "DataSource" in value:
        source = value["DataSource"]
        value = source.get("S3DataSource", {}).get("S3Uri") or source.get(
            "FileSystemDataSource", {}
        ).get("DirectoryPath")
    if hasattr(value, "__fspath__"):
        value = value.__fspath__()
    if not isinstance(value, str) or not value:
        raise ValueError(
            "{}: must be a local path, a file:// URI, a TrainingInput or a FileSystemInput, "
            "got {}".format(path, shown(value))
        )
    if "://" in value and not value.startswith("file://"):
        raise ValueError(
            "{}: {} is not on this machine; the studio reads local folders (a path or a "
            "file:// URI, e.g. from Session().upload_data)".format(path, value)
        )
    return absolute_path(value)


def channels(inputs):
    """fit()'s ``inputs`` as the spec's ``{"channel": "/abs/path"}``: a single value is the
    ``training`` channel, as SageMaker names it."""
    if inputs is None:
        return {}
    if isinstance(inputs, dict) and "DataSource" not in inputs:
        out = {}
        for name, value in inputs.items():
            if not isinstance(name, str) or not name:
                raise ValueError(
                    "inputs: channel names must be strings, got {}".format(shown(name))
                )
            out[name] = channel_path(name, value)
        return out
    return {"training": channel_path("training", inputs)}
