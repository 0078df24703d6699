#!/usr/bin/env python3
"""Reads an Arrow IPC output back with pyarrow for the tests of --out-dir (test_arrow_input.cpp),
from the project-local environment that scripts/install-deps.sh creates.

  read_arrow.py schema FILE
      "format file" or "format stream" (the IPC format it is in), then the Arrow schema with its
      metadata
  read_arrow.py rows FILE
      one JSON object per row, keys sorted
"""
import json
import sys

import pyarrow as pa


def open_ipc(path):
    try:
        return "file", pa.ipc.open_file(path).read_all()
    except pa.ArrowInvalid:
        return "stream", pa.ipc.open_stream(path).read_all()


def main(argv):
    fmt, table = open_ipc(argv[2])
    if argv[1] == "schema":
        print("format", fmt)
        print(table.schema.to_string(show_schema_metadata=True))
    elif argv[1] == "rows":
        for row in table.to_pylist():
            print(json.dumps(row, sort_keys=True))
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
