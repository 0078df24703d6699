#!/usr/bin/env python3
"""Reads a Parquet output back with pyarrow for the tests of --out-dir (test_output_dir.cpp), from
the project-local environment that scripts/install-deps.sh creates.

  read_parquet.py schema FILE
      the Arrow schema with its metadata, then "codec COLUMN CODEC" for each column chunk of the
      first row group
  read_parquet.py rows FILE
      one JSON object per row, keys sorted
"""
import json
import sys

import pyarrow.parquet as pq


def main(argv):
    f = pq.ParquetFile(argv[2])
    if argv[1] == "schema":
        print(f.schema_arrow.to_string(show_schema_metadata=True))
        if f.metadata.num_row_groups > 0:
            group = f.metadata.row_group(0)
            for c in range(group.num_columns):
                column = group.column(c)
                print("codec", column.path_in_schema, column.compression)
    elif argv[1] == "rows":
        for row in f.read().to_pylist():
            print(json.dumps(row, sort_keys=True))
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
