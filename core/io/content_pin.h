// The pin of an input's content: a keyed 128-bit tag that says whether a file is, byte for byte,
// the one that was read, and that nobody without the key can match with other content.
//
// The content is cut into blocks of kPinBlockBytes at fixed offsets. Each block gets a GMAC tag
// (AES-256 in Galois/counter mode over the block alone, its nonce the block's index), and the
// pin is the GMAC of the blocks' tags in order followed by the content's length (under a nonce
// no block has). Blocks are independent, so the parallel stage that parses a chunk tags the
// blocks that lie wholly inside it (pinPart), and the stage that takes chunks in order only adds
// the bytes at the chunks' edges and the blocks' tags (ContentPinner): chunk boundaries do not
// change the pin, and a file read again in other chunks (a resumed read, a check) gives the same.
//
// GMAC is a universal-hash MAC: without the key, content of the same length with the same tag is
// found with probability about 2^-128 per try, whatever the content; with carry-less multiply it
// costs about what the parse's own pass over the bytes costs (docs/performance.md). The key is
// the project's own (pin_key in its meta table): the pin resists deliberate edits by anyone who
// cannot read the project; whoever can read it can also rewrite it, which no pin prevents
// (docs/reference/threat-model.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "document_table.h"

namespace neardup {

inline constexpr std::size_t kPinBlockBytes = std::size_t{64} << 10;

// What a contiguous piece [offset, offset + size) of a file's content contributes to its pin:
// the tags of the blocks that lie wholly inside it, and the lengths of its edges (bytes before
// the first and after the last such block), whose bytes the piece's buffer still holds.
struct PinPart {
    uint64_t offset = 0;
    uint64_t size = 0;
    std::size_t head = 0;  // bytes before the first whole block (all of them when none)
    std::size_t tail = 0;  // bytes after the last whole block
    std::vector<PinTag> blocks;
};

// The part of the `n` bytes at `data`, starting at content offset `offset`, under `key`.
// Thread-safe; for the parallel stage.
PinPart pinPart(const PinKey& key, const char* data, std::size_t n, uint64_t offset);

// A part built from pieces that arrive one after another (a line streamed past in reads): the
// part of all of them, with the bytes of its edges kept in `edges` (head, then tail), for
// ContentPinner::add(part, head, tail). Holds at most one block of bytes.
class PinPartBuilder {
  public:
    PinPartBuilder(const PinKey& key, uint64_t offset);
    void add(const char* data, std::size_t n);
    // The part; `edges` receives its head's bytes followed by its tail's.
    PinPart finish(std::string& edges);

  private:
    PinKey key_;
    PinPart part_;
    std::string head_, block_;  // the head so far; the bytes of the block being filled
    bool headDone_ = false;
};

// Combines a file's content, in order, into its pin. Not thread-safe: one per file.
class ContentPinner {
  public:
    explicit ContentPinner(const PinKey& key);
    ~ContentPinner();
    ContentPinner(ContentPinner&&) noexcept;
    ContentPinner& operator=(ContentPinner&&) noexcept;
    ContentPinner(const ContentPinner&) = delete;
    ContentPinner& operator=(const ContentPinner&) = delete;

    // A part from pinPart() of the bytes at `data`, which start where the content added so far
    // ends. Throws std::logic_error when they do not.
    void add(const PinPart& part, const char* data) {
        add(part, data, data + (part.size - part.tail));
    }
    // The same with the bytes of the part's head at `head` and of its tail at `tail`.
    void add(const PinPart& part, const char* head, const char* tail);
    // Bytes that follow the content added so far.
    void add(const char* data, std::size_t n);
    uint64_t bytes() const;
    // The pin of the content added; the pinner is then spent.
    PinTag finish();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// A fresh random key, from the operating system's random source. Throws std::runtime_error
// when there is none.
PinKey newPinKey();

}  // namespace neardup
