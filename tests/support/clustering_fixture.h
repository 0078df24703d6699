// What the clustering tests share (test_clustering.cpp, test_decisions.cpp): a document table of
// `n` documents whose ids ("d0", "d1", ...), lines and lengths (100 + i characters, so that
// "longest" prefers later documents) tell them apart.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "document_table.h"

namespace clusteringtest {

inline neardup::DocumentTable table(std::size_t n) {
    neardup::DocumentTable t;
    for (std::size_t i = 0; i < n; ++i)
        t.append(0, i + 1, i * 10, 9, static_cast<uint32_t>(100 + i), std::nan(""),
                 "d" + std::to_string(i));
    return t;
}

}  // namespace clusteringtest
