// Test helpers without doctest: test files and goldens (the CLI case runner links these too).
#include "sparksave/version.hpp"
#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace sparksave::test {

std::filesystem::path testdata() {
    return SPARKSAVE_TESTDATA;
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir,
                                            const std::string& suffix) {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        if (e.is_regular_file() && name.size() >= suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::filesystem::path> corpus_dirs(const std::filesystem::path& format_dir,
                                               const std::string& kind) {
    std::vector<std::filesystem::path> out;
    for (const char* source : {"", "hand", "real"}) {
        const std::filesystem::path dir = format_dir / source / kind;
        if (std::filesystem::is_directory(dir)) out.push_back(dir);
    }
    return out;
}

std::vector<std::filesystem::path> corpus_files(const std::filesystem::path& format_dir,
                                                const std::string& kind,
                                                const std::string& suffix) {
    std::vector<std::filesystem::path> out;
    for (const auto& dir : corpus_dirs(format_dir, kind)) {
        auto files = files_in(dir, suffix);
        out.insert(out.end(), files.begin(), files.end());
    }
    return out;
}

bool regenerate() {
    const char* v = std::getenv("SPARKSAVE_REGENERATE");
    return v && std::string(v) == "1";
}

std::string check_golden(const std::filesystem::path& golden, const std::string& actual) {
    if (regenerate()) {
        write_bytes(golden, actual);
        return {};
    }
    if (!std::filesystem::exists(golden))
        return "missing golden " + golden.string() + " (run with SPARKSAVE_REGENERATE=1)";
    std::string expected = read_bytes(golden);
    if (expected == actual) return {};
    std::size_t i = 0;
    while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
    std::size_t line = 1 + static_cast<std::size_t>(std::count(
                               expected.begin(), expected.begin() + static_cast<long>(i), '\n'));
    auto context = [&](const std::string& s) {
        std::size_t start = s.rfind('\n', i == 0 ? 0 : i - 1);
        start = start == std::string::npos ? 0 : start + 1;
        std::size_t end = s.find('\n', i);
        return s.substr(start, (end == std::string::npos ? s.size() : end) - start);
    };
    return golden.string() + ": differs at line " + std::to_string(line) +
           "\n  expected: " + context(expected) + "\n  actual:   " + context(actual);
}

} // namespace sparksave::test
