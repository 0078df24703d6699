// The run report as one self-contained HTML page: inline CSS, inline SVG charts, no script and
// no reference to anything outside the file. Every string from the data is escaped
// (html_text.h). The same data gives the same bytes: nothing here reads a clock.
#pragma once

#include <string>

#include "report_data.h"

namespace neardup::report {

std::string renderReport(const ReportData& data);

}  // namespace neardup::report
