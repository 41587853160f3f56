// The integer a C caller stored in a field or argument that swinup.h declares with an enum type.
// The header's enums have no fixed underlying type, so in C++ the values of, say, swinup_backend
// are only 0..3 (the smallest bit-field holding every enumerator): loading an object of that type
// that holds 99 is undefined behaviour, and a compiler may assume it never happens and remove the
// very range check meant to catch it. A C caller may store any int there. So the context reads
// every enum the caller gave as the bytes of its underlying integer (the type the platform's C
// compiler stores, the same size), and converts to the enum type only once the range is checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace swinup {

template <typename Enum>
int64_t raw_enum(const Enum& value) {
    static_assert(std::is_enum_v<Enum>);
    using Underlying = std::underlying_type_t<Enum>;
    static_assert(sizeof(Underlying) == sizeof(Enum) && sizeof(Underlying) <= sizeof(int32_t));
    Underlying bits;
    std::memcpy(&bits, &value, sizeof bits);  // the bytes, never a load of the enum object
    return static_cast<int64_t>(bits);
}

}  // namespace swinup
