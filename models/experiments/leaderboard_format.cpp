#include "models/experiments/leaderboard_format.h"

#include <QStringList>

#include <charconv>
#include <cmath>

namespace studio::models {

namespace {

// "1.235e+07" -> "1.235e7", "1e-05" -> "1e-5".
QString tidyExponent(QString s) {
    const qsizetype e = s.indexOf(QLatin1Char('e'));
    if (e < 0)
        return s;
    QString mantissa = s.left(e);
    QString exponent = s.mid(e + 1);
    const bool negative = exponent.startsWith(QLatin1Char('-'));
    if (exponent.startsWith(QLatin1Char('+')) || negative)
        exponent.remove(0, 1);
    while (exponent.size() > 1 && exponent.startsWith(QLatin1Char('0')))
        exponent.remove(0, 1);
    return mantissa + QLatin1Char('e') + (negative ? QStringLiteral("-") : QString()) + exponent;
}

} // namespace

QString formatCompactNumber(double v) {
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    const double a = std::fabs(v);
    if (a < 1e7 && v == std::floor(v))
        return QString::number(static_cast<qint64>(v));
    if (a >= 1e4 && a < 1e7)
        return QString::number(v, 'f', 0);
    return tidyExponent(QString::number(v, 'g', 4));
}

QString formatExactNumber(double v) {
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v); // as the engine's CSV export
    return QString::fromLatin1(buf, res.ptr - buf);
}

int naturalCompare(QStringView a, QStringView b) {
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const QChar x = a.at(i), y = b.at(j);
        if (x.isDigit() && y.isDigit()) {
            // Compare the digit runs by value: skip leading zeros, then longer is larger.
            qsizetype ie = i, je = j;
            while (ie < a.size() && a.at(ie).isDigit())
                ++ie;
            while (je < b.size() && b.at(je).isDigit())
                ++je;
            qsizetype is = i, js = j;
            while (is + 1 < ie && a.at(is) == QLatin1Char('0'))
                ++is;
            while (js + 1 < je && b.at(js) == QLatin1Char('0'))
                ++js;
            if (ie - is != je - js)
                return ie - is < je - js ? -1 : 1;
            if (const int c = a.mid(is, ie - is).compare(b.mid(js, je - js)); c != 0)
                return c < 0 ? -1 : 1;
            i = ie;
            j = je;
            continue;
        }
        const QChar lx = x.toCaseFolded(), ly = y.toCaseFolded();
        if (lx != ly)
            return lx < ly ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size())
        return 1;
    if (j < b.size())
        return -1;
    return 0;
}

std::u16string naturalSortKey(QStringView s) {
    std::u16string key;
    key.reserve(static_cast<std::size_t>(s.size()) + 4);
    qsizetype i = 0;
    while (i < s.size()) {
        const QChar c = s.at(i);
        if (!c.isDigit()) {
            key.push_back(c.toCaseFolded().unicode());
            ++i;
            continue;
        }
        // A digit run: '0' (so runs sort among characters as digits do), its length without
        // leading zeros (longer is larger), then its digits.
        qsizetype end = i;
        while (end < s.size() && s.at(end).isDigit())
            ++end;
        qsizetype first = i;
        while (first + 1 < end && s.at(first) == QLatin1Char('0'))
            ++first;
        key.push_back(u'0');
        key.push_back(static_cast<char16_t>(end - first));
        for (qsizetype k = first; k < end; ++k)
            key.push_back(s.at(k).unicode());
        i = end;
    }
    return key;
}

TagListParse parseTagList(const QString& text) {
    TagListParse out;
    const QStringList items = text.split(QLatin1Char(','));
    int index = 0;
    for (const QString& raw : items) {
        ++index;
        const QString item = raw.trimmed();
        if (item.isEmpty()) {
            if (items.size() > 1 && !text.trimmed().isEmpty() && index < items.size()) {
                out.error = QStringLiteral("tag %1 is empty (remove the extra comma)").arg(index);
                return out;
            }
            continue;
        }
        const qsizetype eq = item.indexOf(QLatin1Char('='));
        if (eq < 0) {
            out.error = QStringLiteral("tag \"%1\" has no value: write key=value").arg(item);
            return out;
        }
        const QString key = item.left(eq).trimmed();
        if (key.isEmpty()) {
            out.error =
                QStringLiteral("tag %1 (\"%2\") has no key: write key=value").arg(index).arg(item);
            return out;
        }
        if (out.tags.contains(key)) {
            out.error = QStringLiteral("tag \"%1\" is given twice").arg(key);
            return out;
        }
        out.tags.insert(key, item.mid(eq + 1).trimmed());
    }
    return out;
}

QString formatTagList(const QMap<QString, QString>& tags) {
    QStringList parts;
    for (auto it = tags.constBegin(); it != tags.constEnd(); ++it)
        parts.push_back(it.key() + QLatin1Char('=') + it.value());
    return parts.join(QStringLiteral(", "));
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString out = text;
    out.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + out + QLatin1Char('"');
}

} // namespace studio::models
