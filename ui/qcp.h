// QCustomPlot, made to compile under QT_NO_FOREACH: qcustomplot.h 2.1 still uses Qt's foreach
// in two inline templates (QCustomPlot::plottableAt and itemAt), and both only read a member
// list, so a range-for over a const view of it does the same. Include this, not qcustomplot.h.
#pragma once

#include <utility>

#ifndef foreach
#define foreach(declaration, container) for (declaration : std::as_const(container))
#define NEARDUP_QCP_DEFINED_FOREACH
#endif
#include <qcustomplot.h>
#ifdef NEARDUP_QCP_DEFINED_FOREACH
#undef foreach
#undef NEARDUP_QCP_DEFINED_FOREACH
#endif
