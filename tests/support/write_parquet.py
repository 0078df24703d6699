#!/usr/bin/env python3
"""Writes the Parquet fixtures of test_parquet_input.cpp with pyarrow (Arrow's own writer), from
the project-local environment that scripts/install-deps.sh creates.

  write_parquet.py convert IN.jsonl OUT.parquet ROWS_PER_GROUP COMPRESSION [FIRST [COUNT]]
      the documents of IN.jsonl (lines FIRST.. of it, COUNT of them) as string columns id and
      text, in row groups of ROWS_PER_GROUP rows, pages compressed with COMPRESSION
      (zstd, snappy or none)
  write_parquet.py rich IN.jsonl OUT.parquet ROWS_PER_GROUP COMPRESSION [FIRST [COUNT]]
      as convert, with more columns than id and text, of other types: n (int64, the line
      number), url (large_string), meta (struct of lang and words, int32), and key-value
      metadata on the schema ("source": "neardup test")
  write_parquet.py features OUT.parquet
      six rows in row groups of two: num (int64, row 5 null), meta (struct of content and
      lang; content null in row 3, the whole struct null in row 4), dict (dictionary-encoded
      strings), count (int64), label (large_string)
"""
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from fixture_tables import features_table, read_documents


def convert(source, target, rows_per_group, compression, first=0, count=None, rich=False):
    ids, texts, numbers = read_documents(source, first, count)
    columns = {"id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())}
    if rich:
        columns["n"] = pa.array(numbers, pa.int64())
        columns["url"] = pa.array(["https://example.org/%d" % n for n in numbers],
                                  pa.large_string())
        columns["meta"] = pa.array(
            [{"lang": "en", "words": len(t.split())} for t in texts],
            pa.struct([("lang", pa.string()), ("words", pa.int32())]))
    table = pa.table(columns)
    if rich:
        table = table.replace_schema_metadata({"source": "neardup test"})
    pq.write_table(table, target, row_group_size=rows_per_group,
                   compression=None if compression == "none" else compression)


def features(target):
    table = features_table("parquet files", "row groups", "row group")
    pq.write_table(table, target, row_group_size=2, compression="snappy")


def main(argv):
    if argv[1] in ("convert", "rich"):
        first = int(argv[6]) if len(argv) > 6 else 0
        count = int(argv[7]) if len(argv) > 7 else None
        convert(argv[2], argv[3], int(argv[4]), argv[5], first, count, argv[1] == "rich")
    elif argv[1] == "features":
        features(argv[2])
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
