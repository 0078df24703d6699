// An Arrow schema flattened into the dotted paths the readers' field options take, for
// parquetFields and arrowFields (field_listing.h). Included only in core/columnar/arrow.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <vector>

#include "field_listing.h"

namespace neardup::columnar {

// Each top-level field in schema order, a struct followed by its children (depth first), each
// with `rows` as how often it is seen.
std::vector<FieldInfo> schemaFields(const arrow::Schema& schema, uint64_t rows);

}  // namespace neardup::columnar
