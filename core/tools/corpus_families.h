// The corpus generator's document families, one file per kind of family: a random base and its
// planted variants (corpus_variants.cpp), biography-like template families
// (corpus_templates.cpp); corpus_generator.cpp plans them and writes the corpus and its truth.
// Every member is a pure function of (family seed, member index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "text_synth.h"

namespace neardup::corpus {

enum class FamilyType : uint8_t { Random, Template, Short };

struct Family {
    FamilyType type = FamilyType::Random;
    uint32_t size = 1;
    uint64_t seed = 0;
    uint64_t firstSlot = 0;  // members' positions: slots[firstSlot, firstSlot + size), ascending
};

struct Member {
    std::string text;
    std::string kind;  // how it was derived from member 0 (random families)
};

// One entry of a word list, uniformly.
template <std::size_t N>
const char* pickFrom(synth::Rng& rng, const char* const (&list)[N]) {
    return list[rng.below(N)];
}

// Member `member` of a random family: member 0 is the base document (about meanChars bytes),
// the others planted variants of it (word edits, sentence moves, case, whitespace, NFD, ...).
Member randomMember(const Family& f, uint32_t member, double meanChars);
// Member `member` of a template family: the family's sentence skeleton with names, places and
// numbers of its own.
Member templateMember(const Family& f, uint32_t member);

}  // namespace neardup::corpus
