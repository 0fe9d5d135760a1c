// Numeric CSV import.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "gplvm/core/error.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/io/importers.hpp"

namespace gplvm {
namespace {

std::string trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

// Splits one line at the delimiter; a quoted cell may contain the delimiter, and "" inside
// quotes is one quote character.
std::vector<std::string> split_cells(std::string_view line, char delimiter) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == delimiter && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  for (std::string& cell : cells) cell = trim(cell);
  return cells;
}

std::optional<double> parse_number(const std::string& cell) {
  return read_real(cell);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

class CsvParser {
 public:
  CsvParser(std::string path, const CsvOptions& options) : path_(std::move(path)), options_(options) {}

  void line(std::string_view text, std::size_t number) {
    std::vector<std::string> cells = split_cells(text, options_.delimiter);
    if (width_ == 0) {
      if (start(cells, number)) return;  // it was the header
    }
    row(cells, number);
  }

  CsvTable finish() {
    if (rows_ == 0) throw InputError("CSV file has no data rows", ErrorContext(path_));
    const Index cols = static_cast<Index>(width_) - (label_ ? 1 : 0);
    table_.values = Eigen::Map<const RowMatrix>(values_.data(), static_cast<Index>(rows_), cols);
    table_.has_labels = label_.has_value();
    return std::move(table_);
  }

 private:
  // The first non-blank line fixes the column count and is the header or the first row.
  bool start(const std::vector<std::string>& cells, std::size_t number) {
    width_ = cells.size();
    first_line_ = number;
    bool header = options_.header == CsvHeader::present;
    if (options_.header == CsvHeader::automatic) {
      header = std::any_of(cells.begin(), cells.end(), [](const std::string& c) { return !parse_number(c); });
    }
    label_ = label_index(header ? &cells : nullptr);
    if (header) {
      names_ = cells;
      for (std::size_t j = 0; j < cells.size(); ++j) {
        if (j != label_) table_.column_names.push_back(cells[j]);
      }
    }
    return header;
  }

  std::optional<std::size_t> label_index(const std::vector<std::string>* header) const {
    const std::string& wanted = options_.label_column;
    if (wanted.empty()) return std::nullopt;
    if (all_digits(wanted)) {
      const auto index = read_unsigned(wanted);  // nullopt: too large for any CSV
      if (!index || *index >= width_) {
        throw InputError("label column index " + wanted + " is out of range: the CSV has " +
                             std::to_string(width_) + " columns (indices are 0-based)",
                         ErrorContext(path_, "label column", wanted));
      }
      return index;
    }
    if (!header)
      throw InputError("label column given by name but the CSV has no header line",
                       ErrorContext(path_, "label column", wanted));
    const auto found = std::find(header->begin(), header->end(), wanted);
    if (found == header->end())
      throw InputError("label column not found in the CSV header",
                       ErrorContext(path_, "label column", wanted));
    return static_cast<std::size_t>(found - header->begin());
  }

  void row(const std::vector<std::string>& cells, std::size_t number) {
    if (cells.size() != width_) {
      throw InputError(
          "CSV line " + std::to_string(number) + " has " + std::to_string(cells.size()) +
              " columns, expected " + std::to_string(width_) + " (as on line " + std::to_string(first_line_) +
              ")",
          ErrorContext(path_, "line " + std::to_string(number), std::to_string(cells.size()) + " columns"));
    }
    for (std::size_t j = 0; j < width_; ++j) {
      const std::optional<double> value = parse_number(cells[j]);
      if (!value) throw cell_error(cells[j], number, j, "is not a number");
      if (j != label_) {
        values_.push_back(*value);
        continue;
      }
      const std::optional<std::int64_t> label = exact_integer(*value);
      if (!label) throw cell_error(cells[j], number, j, "is not an integer label");
      table_.labels.push_back(*label);
    }
    ++rows_;
  }

  InputError cell_error(const std::string& cell, std::size_t number, std::size_t column,
                        const std::string& what) const {
    std::string where = "line " + std::to_string(number) + ", column " + std::to_string(column + 1);
    if (column < names_.size()) where += " ('" + names_[column] + "')";
    const std::string shown = cell.empty() ? "empty cell" : "cell '" + cell + "'";
    return InputError("CSV " + shown + " at " + where + " " + what, ErrorContext(path_, where, cell));
  }

  std::string path_;
  CsvOptions options_;
  std::size_t width_ = 0, first_line_ = 0, rows_ = 0;
  std::optional<std::size_t> label_;
  std::vector<std::string> names_;
  std::vector<double> values_;
  CsvTable table_;
};

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  const std::vector<unsigned char> bytes = read_file_bytes(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  CsvParser parser(path, options);
  std::size_t number = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (line.find_first_not_of(" \t") != std::string_view::npos) parser.line(line, number);
    begin = end + 1;
  }
  return parser.finish();
}

}  // namespace gplvm
