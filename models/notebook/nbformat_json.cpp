#include "models/notebook/nbformat_json.h"

#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace studio::models {

namespace {

void writeString(QByteArray& out, const QString& s) {
    out.append('"');
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        switch (u) {
        case u'"':
            out.append("\\\"");
            break;
        case u'\\':
            out.append("\\\\");
            break;
        case u'\n':
            out.append("\\n");
            break;
        case u'\r':
            out.append("\\r");
            break;
        case u'\t':
            out.append("\\t");
            break;
        case u'\b':
            out.append("\\b");
            break;
        case u'\f':
            out.append("\\f");
            break;
        default:
            if (u < 0x20)
                out.append(QStringLiteral("\\u%1").arg(u, 4, 16, QLatin1Char('0')).toLatin1());
            else
                out.append(QString(c).toUtf8());
        }
    }
    out.append('"');
}

// Python's repr of a float: the shortest digits that read back the same, in exponent form
// below 1e-4 and from 1e16 on.
QByteArray pythonFloat(double d) {
    if (std::isnan(d) || std::isinf(d))
        return d != d ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
    if (d == std::trunc(d) && std::fabs(d) < 1e16)
        return QByteArray::number(static_cast<qint64>(d));
    QByteArray digits = QByteArray::number(d, 'e', QLocale::FloatingPointShortest);
    const qsizetype e = digits.indexOf('e');
    const int exponent = digits.mid(e + 1).toInt();
    if (exponent < -4 || exponent >= 16) {
        // Python writes at least two exponent digits: 1e-05, 1.5e+20.
        QByteArray mantissa = digits.left(e);
        const QByteArray sign = exponent < 0 ? "-" : "+";
        QByteArray exp = QByteArray::number(std::abs(exponent));
        if (exp.size() < 2)
            exp.prepend('0');
        return mantissa + 'e' + sign + exp;
    }
    return QByteArray::number(d, 'f', QLocale::FloatingPointShortest);
}

void write(QByteArray& out, const QJsonValue& v, int depth) {
    const QByteArray pad(depth + 1, ' ');
    const QByteArray closePad(depth, ' ');
    switch (v.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out.append("null");
        return;
    case QJsonValue::Bool:
        out.append(v.toBool() ? "true" : "false");
        return;
    case QJsonValue::Double:
        out.append(pythonFloat(v.toDouble()));
        return;
    case QJsonValue::String:
        writeString(out, v.toString());
        return;
    case QJsonValue::Array: {
        const QJsonArray a = v.toArray();
        if (a.isEmpty()) {
            out.append("[]");
            return;
        }
        out.append("[\n");
        for (qsizetype i = 0; i < a.size(); ++i) {
            out.append(pad);
            write(out, a.at(i), depth + 1);
            out.append(i + 1 < a.size() ? ",\n" : "\n");
        }
        out.append(closePad).append(']');
        return;
    }
    case QJsonValue::Object: {
        const QJsonObject o = v.toObject();
        if (o.isEmpty()) {
            out.append("{}");
            return;
        }
        // Python sorts keys by code point; QString compares UTF-16 units, which orders
        // characters above U+FFFF differently, so compare as UCS-4.
        QStringList keys = o.keys();
        std::sort(keys.begin(), keys.end(),
                  [](const QString& a, const QString& b) { return a.toUcs4() < b.toUcs4(); });
        out.append("{\n");
        for (qsizetype i = 0; i < keys.size(); ++i) {
            out.append(pad);
            writeString(out, keys.at(i));
            out.append(": ");
            write(out, o.value(keys.at(i)), depth + 1);
            out.append(i + 1 < keys.size() ? ",\n" : "\n");
        }
        out.append(closePad).append('}');
        return;
    }
    }
}

bool isLineBreak(char16_t c) {
    return c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f' || (c >= 0x1c && c <= 0x1e) ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

} // namespace

QByteArray nbformatJson(const QJsonValue& value) {
    QByteArray out;
    write(out, value, 0);
    return out;
}

QJsonArray splitLinesKeepEnds(const QString& text) {
    QJsonArray lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (!isLineBreak(c))
            continue;
        if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('\n'))
            ++i;
        lines.append(text.mid(start, i + 1 - start));
        start = i + 1;
    }
    if (start < text.size())
        lines.append(text.mid(start));
    return lines;
}

} // namespace studio::models
