// The chain corpus (chain_corpus.h).
#include "chain_corpus.h"

#include <cstdint>
#include <fstream>
#include <vector>

namespace testsupport {

namespace {

// A small deterministic generator (no std:: distributions: same bytes everywhere).
struct Lcg {
    uint64_t s;
    uint64_t next() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return s >> 33;
    }
};

}  // namespace

std::map<std::string, std::string> writeChainCorpus(const std::string& path, int starVersions) {
    Lcg rng{2026};
    auto word = [&] { return "w" + std::to_string(rng.next() % 3000); };
    std::vector<std::string> words;
    for (int i = 0; i < 400; ++i)
        words.push_back(word());
    std::map<std::string, std::string> texts;
    std::ofstream out(path, std::ios::binary);
    auto add = [&](const std::string& id, const std::vector<std::string>& w) {
        std::string text;
        for (const std::string& x : w)
            text += (text.empty() ? "" : " ") + x;
        texts[id] = text;
        out << "{\"id\":\"" << id << "\",\"text\":\"" << text << "\"}\n";
    };
    auto twoDigits = [](int v) { return (v < 10 ? "0" : "") + std::to_string(v); };
    // Each version edits the previous one: a chain.
    for (int v = 0; v < kChainVersions; ++v) {
        add("v" + twoDigits(v), words);
        for (int k = 0; k < 12; ++k)
            words[rng.next() % words.size()] = "x" + std::to_string(rng.next() % 1000000);
    }
    for (int o = 0; o < 6; ++o) {
        std::vector<std::string> other;
        for (int i = 0; i < 300; ++i)
            other.push_back(word());
        add("o" + std::to_string(o), other);
    }
    // Each version edits the original: a star.
    std::vector<std::string> original;
    for (int i = 0; i < 400; ++i)
        original.push_back(word());
    for (int v = 0; v < starVersions; ++v) {
        std::vector<std::string> version = original;
        if (v > 0)
            for (int k = 0; k < 12; ++k)
                version[rng.next() % version.size()] = "y" + std::to_string(rng.next() % 1000000);
        add("s" + twoDigits(v), version);
    }
    return texts;
}

}  // namespace testsupport
