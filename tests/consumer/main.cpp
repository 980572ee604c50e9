// Reads the metadata of a save given on the command line through the installed library (the
// API's headers are all an install has); prints its version.
#include <sparksave/save_file.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto metadata = sparksave::spark_save::read_metadata(std::filesystem::path(argv[1]));
    if (!metadata) {
        std::printf("%s\n", metadata.error().describe().c_str());
        return 1;
    }
    std::printf("spark_save v%u\n", unsigned(metadata->version));
    return 0;
}
