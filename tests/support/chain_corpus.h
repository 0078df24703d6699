// The issue-19 chain corpus, shared by the witness tests (CLI) and the workbench's chain view
// tests: 25 versions of one 400-word text, each with 3 % of its words replaced (ids v00..v24:
// neighbours near-duplicates, the ends far apart), then 6 unrelated documents (o0..o5), then,
// when asked, a star: `starVersions` versions of another 400-word text, each 3 % away from that
// original (s00 the original, s01..: near-duplicates of s00, none a link in a chain).
#pragma once

#include <map>
#include <string>

namespace testsupport {

constexpr int kChainVersions = 25;

// Writes the corpus as JSON Lines ({"id","text"}) and returns the texts by id. Deterministic
// (its own generator): the same bytes on every machine.
std::map<std::string, std::string> writeChainCorpus(const std::string& path, int starVersions = 0);

}  // namespace testsupport
