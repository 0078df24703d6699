// English-like synthetic text for the corpus generator: a fixed pseudo-English vocabulary with
// Zipf-distributed word choice, sentences, paragraphs and the text transforms the planted
// variants need. Everything is a pure function of the random stream, with our own sampling
// (never std:: distributions, whose output differs between standard libraries), so a seed gives
// the same bytes on every platform.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hash_math.h"

namespace neardup::synth {

class Rng {
  public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() { return hashmath::splitmix64(state_); }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    uint64_t below(uint64_t n);                                                 // [0, n)
    int between(int lo, int hi) {                                               // [lo, hi]
        return lo + static_cast<int>(below(static_cast<uint64_t>(hi - lo) + 1));
    }
    bool chance(double p) { return uniform() < p; }
    double normal();  // standard normal (Box-Muller)

  private:
    uint64_t state_;
};

// Independent stream `stream` of `seed`.
uint64_t deriveSeed(uint64_t seed, uint64_t stream);

using Sentence = std::vector<std::string>;  // words with their punctuation attached
using Paragraph = std::vector<Sentence>;
struct Document {
    std::vector<Paragraph> paragraphs;
};

// A word drawn by Zipf rank (function words first, then pseudo-English, a few accented words).
std::string_view zipfWord(Rng& rng);
// A word drawn uniformly from the rarer part of the vocabulary.
std::string_view rareWord(Rng& rng);
std::size_t vocabularySize();

Sentence makeSentence(Rng& rng, int minWords, int maxWords);
Document makeDocument(Rng& rng, double targetChars);
// Lognormal length with mean `meanChars`, clamped to a sane range.
double documentLength(Rng& rng, double meanChars);

std::string render(const Sentence& s);
std::string render(const Document& d);  // sentences joined by " ", paragraphs by "\n\n"

void capitalizeFirst(std::string& word);
std::string upperCase(std::string_view utf8);
std::string titleCase(std::string_view utf8);
std::string toNfd(std::string_view utf8);  // canonical decomposition

}  // namespace neardup::synth
