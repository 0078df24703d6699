// The row mapper of the `decisions` table (audit decisions, decisions.h): the store records,
// lists and undoes them through it, and the workbench's read-only queries list them with the
// same decoder.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "decisions.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup::store_rows {

// Inserts a decision as given (the caller has checked it); returns its id.
int64_t insertDecision(sql::Database& db, int64_t datasetId, DecisionKind kind, uint32_t a,
                       std::optional<uint32_t> b);
// The dataset's decisions, oldest first; none when the project has no such table (schema
// version 1 opened read-only).
std::vector<Decision> loadDecisions(const sql::Database& db, int64_t datasetId);
// Decision `decisionId` of the dataset, or its latest one when 0.
std::optional<Decision> findDecision(const sql::Database& db, int64_t datasetId,
                                     int64_t decisionId);
void deleteDecision(sql::Database& db, int64_t decisionId);

}  // namespace neardup::store_rows
