// What the row mappers of the project's tables share: decoding a stored enum name strictly, and
// the time SQLite stamps rows with. Each table has one mapper, used by its writer and by every
// reader: run_rows.h (runs), dataset_rows.h (datasets and their files, documents and
// rejections), result_rows.h (a run's phases, bands, pairs and clusters), decision_rows.h
// (decisions).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "project_store.h"

namespace neardup::store_rows {

// SQLite's current time as the project stores it (UTC, milliseconds).
inline constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

// The enum value whose toString() is `name`; StoreError naming `what` otherwise.
template <typename E>
E enumFromName(std::initializer_list<E> values, std::string_view name, const char* what) {
    for (E v : values)
        if (name == toString(v)) return v;
    throw StoreError("project store: unknown " + std::string(what) + " '" + std::string(name) +
                     "'");
}

}  // namespace neardup::store_rows
