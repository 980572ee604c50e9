// file_io_os.hpp for Windows (Win32, wide paths: std::filesystem::path::native() is UTF-16
// there, text paths are UTF-8, and a path too long for the classic limit is given in the
// extended-length form: win32_path): CreateFileW, ReadFile/WriteFile, FlushFileBuffers,
// MapViewOfFile for reading a written file back, MoveFileExW with MOVEFILE_WRITE_THROUGH for the
// rename. Where Windows
// cannot do what POSIX does, the function says so and what is done instead.
#ifdef _WIN32

#include "file_io_os.hpp"
#include "sparksave/version.hpp"

#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>

#include <fmt/format.h>

namespace fs = std::filesystem;

SPARKSAVE_BEGIN_NAMESPACE

namespace {

// The system's text for an error code, without its trailing line break.
std::string system_message(DWORD code) {
    char* text = nullptr;
    const DWORD n = ::FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                         FORMAT_MESSAGE_IGNORE_INSERTS,
                                     nullptr, code, 0, reinterpret_cast<char*>(&text), 0, nullptr);
    std::string message = n && text ? std::string(text, n) : fmt::format("error {}", code);
    if (text) ::LocalFree(text);
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r' ||
                                message.back() == ' ' || message.back() == '.'))
        message.pop_back();
    return message;
}

Error win_error(std::string_view what, DWORD code) {
    return make_error(ErrorCode::io_error, fmt::format("{}: {}", what, system_message(code)),
                      k_no_offset);
}

// FILETIME counts 100 ns ticks since 1601-01-01; FileIdentity::mtime_ns, ns since 1970 (only
// compared with itself, but kept in the POSIX unit).
std::int64_t ticks(const FILETIME& t) {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(t.dwHighDateTime) << 32) |
                                     t.dwLowDateTime);
}
constexpr std::int64_t k_ticks_1601_to_1970 = 116444736000000000;

FILETIME filetime(std::int64_t t) {
    FILETIME f{};
    f.dwLowDateTime = static_cast<DWORD>(static_cast<std::uint64_t>(t) & 0xFFFFFFFFu);
    f.dwHighDateTime = static_cast<DWORD>(static_cast<std::uint64_t>(t) >> 32);
    return f;
}

// A file's identity is its volume's serial number and its file index (GetFileInformationByHandle),
// the counterpart of st_dev and st_ino.
os::Status status_from(const BY_HANDLE_FILE_INFORMATION& info) {
    os::Status s;
    s.kind = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? os::Kind::directory
                                                                : os::Kind::regular;
    s.identity.device = info.dwVolumeSerialNumber;
    s.identity.inode = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
    s.identity.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
    s.identity.mtime_ns = (ticks(info.ftLastWriteTime) - k_ticks_1601_to_1970) * 100;
    s.identity.regular = s.kind == os::Kind::regular;
    return s;
}

constexpr DWORD k_share_all = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
constexpr DWORD k_max_io = 1u << 30; // one ReadFile/WriteFile call moves at most this

// Text longer than this is no path (Win32's longest is 32767 UTF-16 units); it converts to
// U+FFFD alone rather than overflow the int lengths of the conversion calls.
constexpr std::size_t k_max_path_text = 1u << 20;
constexpr wchar_t k_replacement = 0xFFFD;

// UTF-8 to UTF-16 and back with CP_UTF8: without MB_ERR_INVALID_CHARS / WC_ERR_INVALID_CHARS
// a byte sequence that is not UTF-8, or an unpaired surrogate, becomes U+FFFD; nothing fails.
std::wstring widen(std::string_view utf8) {
    if (utf8.empty()) return {};
    if (utf8.size() > k_max_path_text) return std::wstring(1, k_replacement);
    const int n = static_cast<int>(utf8.size());
    const int wide = ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), n, nullptr, 0);
    if (wide <= 0) return std::wstring(1, k_replacement);
    std::wstring out(static_cast<std::size_t>(wide), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), n, out.data(), wide);
    return out;
}

std::string narrow(std::wstring_view utf16) {
    if (utf16.empty()) return {};
    if (utf16.size() > k_max_path_text) return "\xEF\xBF\xBD";
    const int n = static_cast<int>(utf16.size());
    const int bytes =
        ::WideCharToMultiByte(CP_UTF8, 0, utf16.data(), n, nullptr, 0, nullptr, nullptr);
    if (bytes <= 0) return "\xEF\xBF\xBD";
    std::string out(static_cast<std::size_t>(bytes), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, utf16.data(), n, out.data(), bytes, nullptr, nullptr);
    return out;
}

void unmap_view(const char* data, std::size_t) {
    ::UnmapViewOfFile(data);
}

} // namespace

// Windows has no SIGBUS: a file with a mapped view cannot be truncated at all (SetEndOfFile
// fails with ERROR_USER_MAPPED_FILE), and inputs are not mapped here (os::map_input), so no
// read can lose its pages.
bool handle_mapping_fault(const void*) noexcept {
    return false;
}

std::size_t mapping_faults() noexcept {
    return 0;
}

namespace os {

Native no_file() noexcept {
    return INVALID_HANDLE_VALUE;
}

Result<void> File::close() noexcept {
    if (h_ == INVALID_HANDLE_VALUE) return {};
    HANDLE h = h_;
    h_ = INVALID_HANDLE_VALUE;
    if (!::CloseHandle(h)) return win_error("cannot close", ::GetLastError());
    return {};
}

Error last_error(std::string_view what) {
    return win_error(what, ::GetLastError());
}

Result<File> open_for_reading(const fs::path& path) {
    // Shared for reading, writing and deletion, as a POSIX open() is: another program may still
    // write, rename or delete the file meanwhile (read_input notices a change). Backup semantics
    // let a directory be opened, to be reported as one.
    HANDLE h =
        ::CreateFileW(win32_path(path).c_str(), GENERIC_READ, k_share_all, nullptr, OPEN_EXISTING,
                      FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (h == INVALID_HANDLE_VALUE) return last_error("cannot open");
    return File(h);
}

Native standard_input() noexcept {
    return ::GetStdHandle(STD_INPUT_HANDLE);
}

Result<Status> status_of(Native file) {
    const DWORD type = ::GetFileType(file);
    if (type == FILE_TYPE_UNKNOWN && ::GetLastError() != NO_ERROR) return last_error("cannot stat");
    if (type != FILE_TYPE_DISK) { // a pipe or a console: a stream
        Status s;
        s.kind = Kind::other;
        return s;
    }
    BY_HANDLE_FILE_INFORMATION info{};
    if (!::GetFileInformationByHandle(file, &info)) return last_error("cannot stat");
    return status_from(info);
}

Status status_of(const fs::path& path, bool follow) noexcept {
    const std::wstring name = win32_path(path);
    HANDLE h = ::CreateFileW(
        name.c_str(), FILE_READ_ATTRIBUTES, k_share_all, nullptr, OPEN_EXISTING,
        FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT), nullptr);
    if (h == INVALID_HANDLE_VALUE) {
        // Opened by another program that shares nothing: its kind and size are still known,
        // its identity is not (zero, which never equals another file's).
        WIN32_FILE_ATTRIBUTE_DATA data{};
        if (!::GetFileAttributesExW(name.c_str(), GetFileExInfoStandard, &data)) return {};
        Status s;
        s.kind =
            (data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? Kind::directory : Kind::regular;
        s.identity.size =
            (static_cast<std::uint64_t>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
        s.identity.regular = s.kind == Kind::regular;
        return s;
    }
    File owned(h);
    Status s;
    if (::GetFileType(h) != FILE_TYPE_DISK) { // NUL, CON, a named pipe
        s.kind = Kind::other;
        return s;
    }
    BY_HANDLE_FILE_INFORMATION info{};
    if (!::GetFileInformationByHandle(h, &info)) return {};
    s = status_from(info);
    if (!follow && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) s.kind = Kind::other;
    return s;
}

Result<std::size_t> read_some(Native file, char* into, std::size_t size) {
    DWORD got = 0;
    if (!::ReadFile(file, into, static_cast<DWORD>(std::min<std::size_t>(size, k_max_io)), &got,
                    nullptr)) {
        const DWORD err = ::GetLastError();
        // The writing end of a pipe closed: its end, as read() returning 0.
        if (err == ERROR_BROKEN_PIPE || err == ERROR_HANDLE_EOF) return std::size_t{0};
        return win_error("cannot read", err);
    }
    return static_cast<std::size_t>(got);
}

Result<std::size_t> read_at(Native file, char* into, std::size_t size, std::uint64_t offset,
                            std::string_view what) {
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset & 0xFFFFFFFFu);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD got = 0;
    if (!::ReadFile(file, into, static_cast<DWORD>(std::min<std::size_t>(size, k_max_io)), &got,
                    &at)) {
        const DWORD err = ::GetLastError();
        if (err == ERROR_HANDLE_EOF) return std::size_t{0};
        return win_error(what, err);
    }
    return static_cast<std::size_t>(got);
}

// Inputs are read, not mapped, on Windows: a file with a mapped view cannot be replaced
// (MoveFileExW fails with ERROR_USER_MAPPED_FILE), and `migrate --in-place` renames the new
// file over the input while the input's bytes are still in use.
std::shared_ptr<const Source> map_input(Native, std::size_t) {
    return nullptr;
}

View::~View() {
    if (data_) unmap_view(data_, size_);
}

Result<View> map_written(Native file, std::size_t size) {
    HANDLE mapping = ::CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!mapping) return last_error("cannot read back");
    void* p = ::MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, size);
    const DWORD err = ::GetLastError();
    ::CloseHandle(mapping); // the view keeps the mapping alive
    if (!p) return win_error("cannot read back", err);
    return View(static_cast<const char*>(p), size);
}

bool read_kept(const fs::path& path, Kept& kept) {
    WIN32_FILE_ATTRIBUTE_DATA data{};
    if (!::GetFileAttributesExW(win32_path(path).c_str(), GetFileExInfoStandard, &data))
        return false;
    kept.mode = data.dwFileAttributes;
    kept.atime = ticks(data.ftLastAccessTime);
    kept.mtime = ticks(data.ftLastWriteTime);
    return true;
}

// POSIX permission bits, owner and extended attributes have no counterpart copied here: the new
// file gets the access control list its directory gives it (inherited), as a file any Windows
// program saves there. FILE_ATTRIBUTE_READONLY is not copied either (the next replace of a
// read-only file is refused by MoveFileExW).
Result<void> apply_kept(Native, const Kept*, int, const fs::path&) {
    return {};
}

Result<void> apply_times(Native file, const Kept& kept) {
    const FILETIME atime = filetime(kept.atime), mtime = filetime(kept.mtime);
    if (!::SetFileTime(file, nullptr, &atime, &mtime)) return last_error("cannot set times");
    return {};
}

// NTFS, FAT and ReFS allow 255 UTF-16 units in a name (native() counts in those units).
std::size_t max_name_length(const fs::path&) {
    return 255;
}

Result<File> create_temporary(fs::path& pattern, bool exact) {
    const fs::path dir = pattern.parent_path();
    const std::string in_dir = "cannot create a temporary file in " +
                               (dir.empty() ? std::string(".") : path_to_utf8(dir, true));
    // Shared for reading (read back) and deletion (remove_temporary_files from the console
    // control handler's thread while a worker still holds it open: removed once closed).
    constexpr DWORD access = GENERIC_READ | GENERIC_WRITE;
    constexpr DWORD share = FILE_SHARE_READ | FILE_SHARE_DELETE;
    if (exact) {
        // O_NOFOLLOW: a symbolic link (or junction) there is refused, never written through.
        const std::wstring name = win32_path(pattern);
        const DWORD attributes = ::GetFileAttributesW(name.c_str());
        if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
            return make_error(ErrorCode::io_error, in_dir + ": a symbolic link is in its place");
        HANDLE h = ::CreateFileW(name.c_str(), access, share, nullptr, CREATE_ALWAYS,
                                 FILE_ATTRIBUTE_NORMAL, nullptr);
        if (h == INVALID_HANDLE_VALUE) return last_error(in_dir);
        return File(h);
    }
    // mkstemp: six random letters and digits, a new file (CREATE_NEW fails if it exists).
    static std::atomic<std::uint64_t> counter{0};
    std::mt19937_64 rng(std::random_device{}() ^ ::GetTickCount64() ^
                        (static_cast<std::uint64_t>(::GetCurrentProcessId()) << 32) ^
                        counter.fetch_add(1));
    constexpr std::wstring_view k_chars =
        L"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::wstring name = pattern.native();
    if (name.size() < 6) return make_error(ErrorCode::internal, "bad temporary name pattern");
    for (int attempt = 0; attempt < 100; ++attempt) {
        for (std::size_t i = name.size() - 6; i < name.size(); ++i)
            name[i] = k_chars[static_cast<std::size_t>(rng() % k_chars.size())];
        HANDLE h = ::CreateFileW(win32_path(name).c_str(), access, share, nullptr, CREATE_NEW,
                                 FILE_ATTRIBUTE_NORMAL, nullptr);
        if (h != INVALID_HANDLE_VALUE) {
            pattern = name;
            return File(h);
        }
        const DWORD err = ::GetLastError();
        if (err != ERROR_FILE_EXISTS && err != ERROR_ALREADY_EXISTS) return win_error(in_dir, err);
    }
    return win_error(in_dir, ERROR_FILE_EXISTS);
}

Result<void> write_all(Native file, std::string_view bytes) {
    while (!bytes.empty()) {
        DWORD wrote = 0;
        if (!::WriteFile(file, bytes.data(),
                         static_cast<DWORD>(std::min<std::size_t>(bytes.size(), k_max_io)), &wrote,
                         nullptr))
            return last_error("cannot write");
        bytes.remove_prefix(wrote);
    }
    return {};
}

void start_writeback(Native, std::uint64_t, std::uint64_t) noexcept {}

Result<void> sync_file(Native file, const fs::path&) {
    if (!::FlushFileBuffers(file)) return last_error("cannot flush to disk");
    return {};
}

// MOVEFILE_WRITE_THROUGH: MoveFileExW returns once the rename is on the disk.
Result<void> rename_replace(const fs::path& from, const fs::path& to) {
    if (!::MoveFileExW(win32_path(from).c_str(), win32_path(to).c_str(),
                       MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        return last_error("cannot rename into place");
    return {};
}

// Without MOVEFILE_REPLACE_EXISTING the rename itself fails if `to` exists, atomically (POSIX
// needs link() and unlink() for that).
Result<void> rename_new(const fs::path& from, const fs::path& to, bool& existed) {
    if (!::MoveFileExW(win32_path(from).c_str(), win32_path(to).c_str(), MOVEFILE_WRITE_THROUGH)) {
        const DWORD err = ::GetLastError();
        existed = err == ERROR_ALREADY_EXISTS || err == ERROR_FILE_EXISTS;
        return win_error("cannot create", err);
    }
    return {};
}

// Windows has no fsync of a directory (FlushFileBuffers needs a file or volume handle): the
// renames were made durable by MOVEFILE_WRITE_THROUGH as they were made.
Result<void> sync_directory(const fs::path&) {
    return {};
}

// From the console control handler too (a thread of its own: it may allocate); without the
// memory for the long form, the path as it is.
void remove_file(const PathChar* path) noexcept {
    try {
        ::DeleteFileW(win32_path(fs::path(path)).c_str());
    } catch (const std::exception&) {
        ::DeleteFileW(path);
    }
}

// The lock of a file is a named mutex for its identity, not LockFileEx on the file: a lock needs
// an open handle, and an open handle on the file (even one that shares deletion) makes another
// write's MoveFileExW over it fail. A mutex whose owner dies is abandoned, and the next wait
// takes it: a dead run's lock never blocks.
void Lock::reset() noexcept {
    if (h_ == 0) return;
    HANDLE mutex = reinterpret_cast<HANDLE>(h_);
    ::ReleaseMutex(mutex);
    ::CloseHandle(mutex);
    h_ = 0;
}

Result<File> open_for_lock(const fs::path& path) {
    // Attributes only: no data access, every sharing allowed (the file's identity is all it
    // gives), so no other program's open or rename is refused meanwhile.
    HANDLE h = ::CreateFileW(win32_path(path).c_str(), FILE_READ_ATTRIBUTES, k_share_all, nullptr,
                             OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (h == INVALID_HANDLE_VALUE) return last_error("cannot open");
    return File(h);
}

Result<Lock> lock_file(File file, const FileIdentity& identity) {
    (void)file.close();
    Lock lock;
    // Global\: every session of the machine (a service and a user's console alike); a system
    // that refuses it gets the session's own namespace.
    const std::wstring id =
        widen(fmt::format("sparksave-lock-{:08x}-{:016x}", identity.device, identity.inode));
    HANDLE mutex = ::CreateMutexW(nullptr, FALSE, (L"Global\\" + id).c_str());
    if (!mutex) mutex = ::CreateMutexW(nullptr, FALSE, (L"Local\\" + id).c_str());
    if (!mutex) return lock; // no lock: the identity check before the rename remains
    const DWORD waited = ::WaitForSingleObject(mutex, INFINITE);
    if (waited != WAIT_OBJECT_0 && waited != WAIT_ABANDONED) {
        ::CloseHandle(mutex);
        return lock;
    }
    lock.h_ = reinterpret_cast<std::uintptr_t>(mutex);
    return lock;
}

Lock hold_temporary(Native) {
    return Lock(); // create_temporary opens it without write sharing: temporary_held sees that
}

bool temporary_held(const fs::path& path) noexcept {
    try {
        // Refused while its writer has it open for writing (create_temporary shares only reading
        // and deletion).
        HANDLE h = ::CreateFileW(win32_path(path).c_str(), GENERIC_READ,
                                 FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                 FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
        if (h == INVALID_HANDLE_VALUE) {
            const DWORD code = ::GetLastError();
            return code == ERROR_SHARING_VIOLATION || code == ERROR_FILE_NOT_FOUND;
        }
        ::CloseHandle(h);
        return false;
    } catch (const std::exception&) {
        return false;
    }
}

fs::path path_from_utf8(std::string_view utf8) {
    return fs::path(widen(utf8));
}

std::string path_to_utf8(const fs::path& path, bool generic) {
    return narrow(generic ? path.generic_wstring() : path.native());
}

// https://learn.microsoft.com/windows/win32/fileio/maximum-file-path-limitation: a classic
// Win32 path is at most MAX_PATH (260) units with its terminating NUL, a directory's MAX_PATH -
// 12 (room for an 8.3 name); longer, CreateFileW, MoveFileExW and the rest fail with
// ERROR_PATH_NOT_FOUND or ERROR_FILENAME_EXCED_RANGE unless the process opted into long paths
// (a manifest and a system setting). The extended-length syntax has no such limit but is taken
// as it is: GetFullPathNameW first does what Win32 would have done to the classic path (made
// absolute against the current directory, `.` and `..` resolved, `/` turned into `\`), so the
// long form names the file the short one would have named. A path already in the `\\?\` or
// device (`\\.\`) syntax, and every path short enough, is left as it is.
std::wstring win32_path(const fs::path& path) {
    constexpr DWORD k_classic_limit = MAX_PATH - 12;
    const std::wstring& name = path.native();
    if (name.starts_with(L"\\\\?\\") || name.starts_with(L"\\\\.\\")) return name;
    const DWORD need = ::GetFullPathNameW(name.c_str(), 0, nullptr, nullptr); // with its NUL
    if (need == 0 || need <= k_classic_limit) return name;
    std::wstring full(need, L'\0');
    const DWORD got = ::GetFullPathNameW(name.c_str(), need, full.data(), nullptr);
    if (got == 0 || got >= need) return name;
    full.resize(got);
    if (full.starts_with(L"\\\\?\\") || full.starts_with(L"\\\\.\\")) return full;
    if (full.starts_with(L"\\\\")) return L"\\\\?\\UNC\\" + full.substr(2); // \\server\share\...
    return L"\\\\?\\" + full;
}

} // namespace os

SPARKSAVE_END_NAMESPACE

#endif // _WIN32
