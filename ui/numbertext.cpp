#include "numbertext.h"

namespace neardup::ui {

QLocale numberLocale() {
    QLocale locale;
    if (locale.language() == QLocale::C) locale = QLocale(QLocale::English, QLocale::UnitedStates);
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale;
}

QString countText(quint64 n) {
    return numberLocale().toString(qulonglong(n));
}

QString decimalText(double v, int decimals) {
    return numberLocale().toString(v, 'f', decimals);
}

QString rateText(double perSecond, const QString& unit, int decimals) {
    return decimalText(perSecond, decimals) + QLatin1Char(' ') + unit;
}

}  // namespace neardup::ui
