// Reads a save given on the command line through the installed library; prints its version.
#include <sparksave/file_io.hpp>
#include <sparksave/format.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto source = sparksave::read_file(argv[1], 1 << 20);
    if (!source) return 2;
    const auto* format = sparksave::detect_format((*source)->view());
    if (!format) return 1;
    auto parsed = format->read(*source, {});
    std::printf("%s v%u\n", std::string(format->name).c_str(), parsed.doc.version());
    return parsed.findings.has_errors() ? 1 : 0;
}
