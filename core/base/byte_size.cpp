// Parsing byte sizes as the command line and the tests write them ("256M", "1.5G").
#include "byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace neardup {

std::optional<uint64_t> parseByteSize(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    const std::size_t numberBegin = i;
    bool digits = false, dot = false;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
        ++i;
    }
    if (!digits) return std::nullopt;
    const std::string number(text.substr(numberBegin, i - numberBegin));
    std::string unit;
    for (; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) continue;
        unit += static_cast<char>(std::toupper(c));
    }
    int shift = 0;
    std::string_view rest = unit;
    if (!rest.empty()) {
        switch (rest.front()) {
            case 'K':
                shift = 10;
                break;
            case 'M':
                shift = 20;
                break;
            case 'G':
                shift = 30;
                break;
            case 'T':
                shift = 40;
                break;
            default:
                break;
        }
        if (shift != 0) rest.remove_prefix(1);
    }
    if (!(rest.empty() || rest == "B" || (shift != 0 && rest == "IB"))) return std::nullopt;
    const long double value = std::strtold(number.c_str(), nullptr);
    const long double bytes = std::floor(value * std::ldexp(1.0L, shift));
    if (!(bytes >= 0) || bytes > static_cast<long double>(std::numeric_limits<uint64_t>::max()))
        return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

}  // namespace neardup
