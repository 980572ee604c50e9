#include "sparksave/alongside.hpp"
#include "sparksave/version.hpp"

#include <future>
#include <system_error>

SPARKSAVE_BEGIN_NAMESPACE

void alongside(const std::function<void()>& here, const std::function<void()>& there) {
    std::future<void> pending;
    try {
        pending = std::async(std::launch::async, there);
    } catch (const std::system_error&) {
        there();
        here();
        return;
    }
    here(); // if it throws, the future's destructor still waits for `there`
    pending.get();
}

void read_with_crc(bool parallel, const std::function<std::uint32_t()>& crc,
                   const std::function<bool(const CrcHint&)>& read) {
    if (!parallel) {
        read(CrcHint{});
        return;
    }
    std::future<std::uint32_t> pending;
    try {
        pending = std::async(std::launch::async, crc);
    } catch (const std::system_error&) {
        read(CrcHint{crc(), {}});
        return;
    }
    std::optional<std::uint32_t> computed;
    auto await = [&] {
        if (!computed) computed = pending.get();
        return *computed;
    };
    const bool stands = read(CrcHint{std::nullopt, await});
    const std::uint32_t value = await(); // joined on every path
    if (!stands) read(CrcHint{value, {}});
}

SPARKSAVE_END_NAMESPACE
