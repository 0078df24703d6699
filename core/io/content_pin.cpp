#include "content_pin.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace neardup {

namespace {

// A GMAC computation: one reusable OpenSSL context, re-keyed with a nonce per message.
class Gmac {
  public:
    Gmac() {
        mac_ = EVP_MAC_fetch(nullptr, "GMAC", nullptr);
        ctx_ = mac_ ? EVP_MAC_CTX_new(mac_) : nullptr;
        if (ctx_ == nullptr) throw std::runtime_error("content pin: GMAC is not available");
    }
    ~Gmac() {
        EVP_MAC_CTX_free(ctx_);
        EVP_MAC_free(mac_);
    }
    Gmac(const Gmac&) = delete;
    Gmac& operator=(const Gmac&) = delete;

    // Starts a message under `key` with the 12-byte nonce made of `nonce` (little-endian) and
    // `domain`: a block's index, or the pin's own nonce.
    void start(const PinKey& key, uint64_t nonce, uint32_t domain) {
        unsigned char iv[12];
        for (int i = 0; i < 8; ++i)
            iv[i] = static_cast<unsigned char>(nonce >> (8 * i));
        for (int i = 0; i < 4; ++i)
            iv[8 + i] = static_cast<unsigned char>(domain >> (8 * i));
        char cipher[] = "AES-256-GCM";
        const OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher, 0),
            OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, iv, sizeof iv),
            OSSL_PARAM_construct_end()};
        if (EVP_MAC_init(ctx_, key.data(), key.size(), params) != 1)
            throw std::runtime_error("content pin: GMAC cannot start");
    }
    void update(const void* data, std::size_t n) {
        if (n > 0 && EVP_MAC_update(ctx_, static_cast<const unsigned char*>(data), n) != 1)
            throw std::runtime_error("content pin: GMAC failed");
    }
    PinTag finish() {
        PinTag tag{};
        std::size_t length = 0;
        if (EVP_MAC_final(ctx_, tag.data(), &length, tag.size()) != 1 || length != tag.size())
            throw std::runtime_error("content pin: GMAC failed");
        return tag;
    }

  private:
    EVP_MAC* mac_ = nullptr;
    EVP_MAC_CTX* ctx_ = nullptr;
};

constexpr uint32_t kBlockDomain = 0;
constexpr uint32_t kPinDomain = 0xFFFFFFFFu;  // the pin's nonce, which no block's equals

PinTag blockTag(Gmac& gmac, const PinKey& key, uint64_t block, const char* data) {
    gmac.start(key, block, kBlockDomain);
    gmac.update(data, kPinBlockBytes);
    return gmac.finish();
}

}  // namespace

PinPart pinPart(const PinKey& key, const char* data, std::size_t n, uint64_t offset) {
    thread_local Gmac gmac;
    PinPart part;
    part.offset = offset;
    part.size = n;
    const uint64_t intoBlock = offset % kPinBlockBytes;
    part.head = intoBlock == 0 ? 0 : std::min<uint64_t>(n, kPinBlockBytes - intoBlock);
    std::size_t at = part.head;
    part.blocks.reserve((n - at) / kPinBlockBytes);
    for (; n - at >= kPinBlockBytes; at += kPinBlockBytes)
        part.blocks.push_back(blockTag(gmac, key, (offset + at) / kPinBlockBytes, data + at));
    part.tail = n - at;
    return part;
}

PinPartBuilder::PinPartBuilder(const PinKey& key, uint64_t offset) : key_(key) {
    part_.offset = offset;
    headDone_ = offset % kPinBlockBytes == 0;
}

void PinPartBuilder::add(const char* data, std::size_t n) {
    thread_local Gmac gmac;
    while (n > 0) {
        const uint64_t at = part_.offset + part_.size;
        const std::size_t room = kPinBlockBytes - static_cast<std::size_t>(at % kPinBlockBytes);
        const std::size_t take = std::min(n, room);
        if (!headDone_) {
            head_.append(data, take);
            if (take == room) headDone_ = true;
        } else {
            block_.append(data, take);
            if (block_.size() == kPinBlockBytes) {
                // The block ends with these bytes.
                part_.blocks.push_back(
                    blockTag(gmac, key_, (at + take) / kPinBlockBytes - 1, block_.data()));
                block_.clear();
            }
        }
        part_.size += take;
        data += take;
        n -= take;
    }
}

PinPart PinPartBuilder::finish(std::string& edges) {
    part_.head = head_.size();
    part_.tail = block_.size();
    edges = head_ + block_;
    return part_;
}

struct ContentPinner::Impl {
    PinKey key;
    Gmac block;  // the block being filled
    Gmac pin;    // the blocks' tags so far
    uint64_t bytes = 0;
    std::size_t inBlock = 0;  // bytes of the current block added so far

    // Adds bytes that all lie in the current block (or start it).
    void partial(const char* data, std::size_t n) {
        if (n == 0) return;
        if (inBlock == 0) block.start(key, bytes / kPinBlockBytes, kBlockDomain);
        block.update(data, n);
        inBlock += n;
        bytes += n;
        if (inBlock == kPinBlockBytes) {
            const PinTag tag = block.finish();
            pin.update(tag.data(), tag.size());
            inBlock = 0;
        }
    }
};

ContentPinner::ContentPinner(const PinKey& key) : impl_(std::make_unique<Impl>()) {
    impl_->key = key;
    impl_->pin.start(key, 0, kPinDomain);
}

ContentPinner::~ContentPinner() = default;
ContentPinner::ContentPinner(ContentPinner&&) noexcept = default;
ContentPinner& ContentPinner::operator=(ContentPinner&&) noexcept = default;

void ContentPinner::add(const PinPart& part, const char* head, const char* tail) {
    Impl& s = *impl_;
    if (part.offset != s.bytes)
        throw std::logic_error("content pin: a part out of order (at " +
                               std::to_string(part.offset) + ", expected " +
                               std::to_string(s.bytes) + ")");
    s.partial(head, part.head);
    for (const PinTag& tag : part.blocks) {
        s.pin.update(tag.data(), tag.size());
        s.bytes += kPinBlockBytes;
    }
    s.partial(tail, part.tail);
}

void ContentPinner::add(const char* data, std::size_t n) {
    Impl& s = *impl_;
    while (n > 0) {
        const std::size_t take = std::min(n, kPinBlockBytes - s.inBlock);
        s.partial(data, take);
        data += take;
        n -= take;
    }
}

uint64_t ContentPinner::bytes() const {
    return impl_->bytes;
}

PinTag ContentPinner::finish() {
    Impl& s = *impl_;
    if (s.inBlock > 0) {  // the last block, shorter than the others
        const PinTag tag = s.block.finish();
        s.pin.update(tag.data(), tag.size());
        s.inBlock = 0;
    }
    unsigned char length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<unsigned char>(s.bytes >> (8 * i));
    s.pin.update(length, sizeof length);
    return s.pin.finish();
}

PinKey newPinKey() {
    PinKey key{};
    if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
        throw std::runtime_error("cannot make a content pin key: no random source");
    return key;
}

}  // namespace neardup
