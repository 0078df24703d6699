#!/usr/bin/env python3
"""Writes the Arrow IPC fixtures of test_arrow_input.cpp with pyarrow (Arrow's own writers), from
the project-local environment that scripts/install-deps.sh creates.

  write_arrow.py convert IN.jsonl OUT.arrow ROWS_PER_BATCH FORMAT [FIRST [COUNT]]
      the documents of IN.jsonl (lines FIRST.. of it, COUNT of them) as string columns id and
      text, in record batches of ROWS_PER_BATCH rows, as an IPC FORMAT: "file"
      (pa.ipc.new_file) or "stream" (pa.ipc.new_stream, what `datasets` writes into its shards)
  write_arrow.py features OUT.arrow FORMAT
      six rows in batches of two: num (int64, row 5 null), meta (struct of content and lang;
      content null in row 3, the whole struct null in row 4), dict (dictionary-encoded
      strings), count (int64), label (large_string); the schema has key-value metadata
  write_arrow.py save_to_disk IN.jsonl DIR SHARDS
      the documents of IN.jsonl as a folder in the layout Dataset.save_to_disk writes: SHARDS
      IPC stream files data-0000i-of-0000N.arrow (batches of 100 rows), state.json listing them
      in `_data_files`, dataset_info.json with the features (the `datasets` package itself is
      not needed)
"""
import json
import os
import sys

import pyarrow as pa

from fixture_tables import features_table, read_documents


def write(table, target, fmt, rows_per_batch):
    opener = pa.ipc.new_file if fmt == "file" else pa.ipc.new_stream
    with pa.OSFile(target, "wb") as sink, opener(sink, table.schema) as writer:
        for batch in table.to_batches(max_chunksize=rows_per_batch):
            writer.write_batch(batch)


def documents(source, first=0, count=None):
    ids, texts, _ = read_documents(source, first, count)
    return pa.table({"id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())})


def features(target, fmt):
    table = features_table("arrow files", "record batches", "record batch")
    table = table.replace_schema_metadata({"origin": "write_arrow.py features"})
    write(table, target, fmt, 2)


def save_to_disk(source, folder, shards):
    table = documents(source)
    os.makedirs(folder, exist_ok=True)
    per_shard = (table.num_rows + shards - 1) // shards
    files = []
    for i in range(shards):
        name = "data-%05d-of-%05d.arrow" % (i, shards)
        write(table.slice(i * per_shard, per_shard), os.path.join(folder, name), "stream", 100)
        files.append({"filename": name})
    state = {"_data_files": files, "_fingerprint": "0123456789abcdef", "_format_columns": None,
             "_format_kwargs": {}, "_format_type": None, "_output_all_columns": False,
             "_split": None}
    info = {"citation": "", "description": "", "homepage": "", "license": "",
            "features": {"id": {"dtype": "string", "_type": "Value"},
                         "text": {"dtype": "string", "_type": "Value"}}}
    with open(os.path.join(folder, "state.json"), "w") as f:
        json.dump(state, f, indent=2)
    with open(os.path.join(folder, "dataset_info.json"), "w") as f:
        json.dump(info, f, indent=2)


def main(argv):
    if argv[1] == "convert":
        first = int(argv[6]) if len(argv) > 6 else 0
        count = int(argv[7]) if len(argv) > 7 else None
        write(documents(argv[2], first, count), argv[3], argv[5], int(argv[4]))
    elif argv[1] == "features":
        features(argv[2], argv[3])
    elif argv[1] == "save_to_disk":
        save_to_disk(argv[2], argv[3], int(argv[4]))
    else:
        sys.exit("unknown mode " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
