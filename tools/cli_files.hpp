// Files the savekit command-line program reads and writes: whole, checked, and written
// through a temporary file and a rename (never a truncated file).
#pragma once

#include <savekit/error.hpp>

#include <string>
#include <string_view>

namespace savekit_cli {

savekit::error io_failure(const std::string& what, int code);
// All of a file ("-" or empty: standard input), refusing folders and other non-files.
savekit::result<std::string> read_input(const std::string& file);
// Writes a whole file through a temporary one beside it and a rename (details in cli_files.cpp).
savekit::status write_file(const std::string& path, std::string_view content);
// A command's result: to standard output ("-" or empty), checked, or to a file (write_file).
// The exit code.
int write_output(const std::string& path, std::string_view bytes);
// Writes a new file readable by its owner only (a key), durably; errc::already_exists if
// anything is at path already (a key file replaced would lose every save sealed with it).
savekit::status create_private_file(const std::string& path, std::string_view content);

}  // namespace savekit_cli
