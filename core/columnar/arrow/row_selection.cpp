// core/columnar with Apache Arrow: the kept rows, their runs and --annotate's fields and columns
// (row_selection.h), shared by the Parquet and Arrow IPC copies.
#include "row_selection.h"

namespace neardup::columnar {

std::vector<uint64_t> keptRows(const ParquetRowSelection& rows, uint64_t firstRow, uint64_t count) {
    std::vector<uint64_t> kept;
    for (uint64_t r = firstRow; r < firstRow + count && r < rows.keep.size(); ++r)
        if (rows.keep[r]) kept.push_back(r);
    return kept;
}

std::vector<std::pair<int64_t, int64_t>> keptRuns(const std::vector<uint64_t>& kept,
                                                  uint64_t firstRow) {
    std::vector<std::pair<int64_t, int64_t>> runs;
    for (std::size_t i = 0; i < kept.size();) {
        std::size_t j = i + 1;
        while (j < kept.size() && kept[j] == kept[j - 1] + 1)
            ++j;
        runs.emplace_back(static_cast<int64_t>(kept[i] - firstRow), static_cast<int64_t>(j - i));
        i = j;
    }
    return runs;
}

arrow::Result<std::shared_ptr<arrow::Schema>> annotatedSchema(std::shared_ptr<arrow::Schema> schema,
                                                              const ParquetRowSelection& rows) {
    if (!rows.annotate) return schema;
    for (const std::string* name : {&rows.clusterIdName, &rows.clusterSizeName, &rows.removedName})
        if (schema->GetFieldIndex(*name) >= 0)
            return arrow::Status::Invalid("it already has a column '", *name,
                                          "' (--annotate adds it)");
    for (const auto& field : {arrow::field(rows.clusterIdName, arrow::int64(), false),
                              arrow::field(rows.clusterSizeName, arrow::int64(), false),
                              arrow::field(rows.removedName, arrow::boolean(), false)}) {
        ARROW_ASSIGN_OR_RAISE(schema, schema->AddField(schema->num_fields(), field));
    }
    return schema;
}

arrow::Result<arrow::ArrayVector> annotationArrays(const ParquetRowSelection& rows,
                                                   const std::vector<uint64_t>& kept) {
    arrow::Int64Builder ids, sizes;
    arrow::BooleanBuilder removed;
    for (const uint64_t r : kept) {
        ARROW_RETURN_NOT_OK(ids.Append(r < rows.clusterId.size() ? rows.clusterId[r] : -1));
        ARROW_RETURN_NOT_OK(sizes.Append(r < rows.clusterSize.size() ? rows.clusterSize[r] : 1));
        ARROW_RETURN_NOT_OK(removed.Append(r < rows.removed.size() && rows.removed[r] != 0));
    }
    arrow::ArrayVector arrays(3);
    ARROW_RETURN_NOT_OK(ids.Finish(&arrays[0]));
    ARROW_RETURN_NOT_OK(sizes.Finish(&arrays[1]));
    ARROW_RETURN_NOT_OK(removed.Finish(&arrays[2]));
    return arrays;
}

}  // namespace neardup::columnar
