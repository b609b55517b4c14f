// Text the leaderboard shows and accepts: compact numbers, "key=value, ..." tag lists, CSV
// fields, and the natural order names sort in ("job-9" before "job-10"). Pure functions, Qt Core.
#pragma once

#include <QMap>
#include <QString>
#include <QStringView>

#include <optional>
#include <string>

namespace studio::models {

// "0.9123", "1.235e-5", "12346", "42", "NaN", "inf": at least four significant digits, no
// exponent for magnitudes from 1e-4 to 1e7.
QString formatCompactNumber(double value);
// The shortest text that reads back as the same double, as the engine's CSV export writes it
// ("0.1", "1e-04", "NaN", "inf").
QString formatExactNumber(double value);

// Case-insensitive order that compares runs of digits by their value.
int naturalCompare(QStringView a, QStringView b);
// A key whose plain (code unit) order is naturalCompare's order: for sorting many strings,
// compute keys once instead of comparing naturally per pair.
std::u16string naturalSortKey(QStringView s);

struct TagListParse {
    QMap<QString, QString> tags;
    QString error; // "" when the text parsed; else which item is wrong and how
};
// "key=value, key2=value 2": keys and values trimmed; an empty text is no tags.
TagListParse parseTagList(const QString& text);
QString formatTagList(const QMap<QString, QString>& tags);

// One RFC 4180 field: quoted when it holds a comma, quote or line break.
QString csvField(const QString& text);

} // namespace studio::models
