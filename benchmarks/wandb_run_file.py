"""Read a W&B run file (`run-<id>.wandb`): the resolved config, the history rows and the console.

The ninth and tenth rounds of `sim_published.py` come from such files committed to public repositories
(`published_runs.NINTH_RUNS`, `TENTH_RUNS`): binary, so no text search finds them and no viewer shows them.
This reads them with wandb's own record protobufs (the wandb package of this project's stack; its Python reader of
the file format went away with wandb's Go core), so anyone can check the rounds' medians from the sources:

    python benchmarks/wandb_run_file.py run-phayu0dj.wandb                 # config keys and the history, as JSON
    python benchmarks/wandb_run_file.py run-phayu0dj.wandb --console       # what the run printed

The file is a LevelDB-style log: 32 KiB blocks of records, each a 7-byte header (CRC32, length, type: full, first,
middle, last) and its bytes; a record's bytes are one `wandb_internal_pb2.Record`.
"""

from __future__ import annotations

import argparse
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BLOCK = 32 * 1024
HEADER = 7
FILE_HEADER = 7  # ":W&B", a version and a magic number
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def raw_records(data: bytes) -> Iterator[bytes]:
    """The records' bytes, chunks joined, in file order; a truncated file ends at its last whole record."""
    pos, pending = FILE_HEADER, b""
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:  # a block's tail too short for a header is padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos : pos + HEADER])
        if kind == 0 and length == 0:  # zero padding up to the block's end
            pos += left
            continue
        chunk = data[pos + HEADER : pos + HEADER + length]
        pos += HEADER + length
        if kind == FULL:
            yield chunk
        elif kind == FIRST:
            pending = chunk
        elif kind == MIDDLE:
            pending += chunk
        elif kind == LAST:
            yield pending + chunk
            pending = b""
        else:
            return


def read_run(path: Path) -> dict[str, Any]:
    """{"config": {key: value}, "history": [row, ...], "console": str} of a run file."""
    from wandb.proto import wandb_internal_pb2 as pb

    config: dict[str, Any] = {}
    history: list[dict[str, Any]] = []
    console: list[str] = []
    for chunk in raw_records(path.read_bytes()):
        record = pb.Record()
        record.ParseFromString(chunk)
        kind = record.WhichOneof("record_type")
        if kind in ("config", "run"):
            items = record.config.update if kind == "config" else record.run.config.update
            for item in items:
                config[item.key] = _value(item.value_json)
        elif kind == "history":
            history.append(
                {item.key or "/".join(item.nested_key): _value(item.value_json) for item in record.history.item}
            )
        elif kind == "output_raw":
            console.append(record.output_raw.line)
        elif kind == "output":
            console.append(record.output.line + "\n")
    return {"config": config, "history": history, "console": "".join(console)}


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_file", type=Path)
    parser.add_argument("--console", action="store_true", help="print what the run printed instead of the JSON")
    args = parser.parse_args()
    run = read_run(args.run_file)
    if args.console:
        print(run["console"], end="")
    else:
        print(json.dumps({"config": run["config"], "history": run["history"]}, indent=1, default=str))


if __name__ == "__main__":
    main()
