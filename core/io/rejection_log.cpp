// RejectionLog, the rejections that make one again, and the names of rejection reasons.
#include <array>

#include "jsonl_reader.h"

namespace neardup {

const char* toString(RejectReason r) {
    switch (r) {
        case RejectReason::MalformedJson:
            return "malformed_json";
        case RejectReason::NotAnObject:
            return "not_an_object";
        case RejectReason::MissingText:
            return "missing_text";
        case RejectReason::TextNotString:
            return "text_not_string";
        case RejectReason::InvalidUtf8:
            return "invalid_utf8";
        case RejectReason::ControlCharacter:
            return "control_character";
        case RejectReason::InvalidId:
            return "invalid_id";
        case RejectReason::UnreadableFile:
            return "unreadable_file";
        case RejectReason::CorruptInput:
            return "corrupt_input";
        case RejectReason::LineTooLong:
            return "line_too_long";
        case RejectReason::DuplicateKey:
            return "duplicate_key";
        case RejectReason::Count_:
            break;
    }
    return "unknown";
}

void RejectionLog::add(const Rejection& r) {
    const auto reason = static_cast<std::size_t>(r.reason);
    if (reason >= static_cast<std::size_t>(kRejectReasonCount)) return;
    ++counts[reason];
    RejectedLine where;
    where.line = r.line;
    where.file = r.file;
    where.reason = static_cast<uint8_t>(r.reason);
    all.push_back(where);
    if (samples.size() < kSampleLimit) {
        samples.push_back(r);
        return;
    }
    if (first(r.reason) != nullptr) return;
    // The first rejection of every reason stays among the samples, so first() needs nothing
    // else: make room by dropping the latest sample that is not the first of its reason. The
    // samples stay in input order and within the limit.
    std::array<std::size_t, kRejectReasonCount> firstIndex;
    firstIndex.fill(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        std::size_t& f = firstIndex[static_cast<std::size_t>(samples[i].reason)];
        if (f == samples.size()) f = i;
    }
    for (std::size_t i = samples.size(); i-- > 0;) {
        if (firstIndex[static_cast<std::size_t>(samples[i].reason)] != i) {
            samples.erase(samples.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        }
    }
    samples.push_back(r);
}

uint64_t RejectionLog::total() const {
    uint64_t sum = 0;
    for (const uint64_t c : counts)
        sum += c;
    return sum;
}

const Rejection* RejectionLog::first(RejectReason reason) const {
    for (const Rejection& r : samples) {
        if (r.reason == reason) return &r;
    }
    return nullptr;
}

std::vector<Rejection> replayedRejections(const std::vector<RejectedLine>& all,
                                          const std::vector<Rejection>& samples) {
    std::vector<Rejection> out;
    out.reserve(all.size());
    std::size_t sample = 0;  // the samples are in input order, a subsequence of `all`
    for (const RejectedLine& where : all) {
        Rejection r;
        r.reason = static_cast<RejectReason>(where.reason);
        r.file = where.file;
        r.line = where.line;
        if (sample < samples.size() && samples[sample].reason == r.reason &&
            samples[sample].file == r.file && samples[sample].line == r.line)
            r.detail = samples[sample++].detail;
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace neardup
