#include "models/notebook/output_mime.h"

#include "models/notebook/notebook_document.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace studio::models {

namespace {

QJsonObject dataOf(const QJsonObject& output) {
    return output.value(QStringLiteral("data")).toObject();
}

QJsonObject metadataOf(const QJsonObject& output) {
    return output.value(QStringLiteral("metadata")).toObject();
}

OutputKind kindOf(const QString& mime) {
    if (mime == QLatin1String(kJobMimeType))
        return OutputKind::JobCard;
    if (mime == QLatin1String(kTuningMimeType))
        return OutputKind::TuningCard;
    if (mime == QLatin1String("image/svg+xml"))
        return OutputKind::Svg;
    if (mime.startsWith(QLatin1String("image/")))
        return OutputKind::Image;
    if (mime == QLatin1String("text/html"))
        return OutputKind::Html;
    if (mime == QLatin1String("text/markdown"))
        return OutputKind::Markdown;
    if (mime == QLatin1String("application/json"))
        return OutputKind::Json;
    return OutputKind::Text;
}

// A positive number from a JSON number or a numeric string ("300", as some libraries write it).
int positive(const QJsonValue& v) {
    const double d = v.isString() ? v.toString().toDouble() : v.toDouble();
    return std::isfinite(d) && d >= 1 && d < 1e6 ? static_cast<int>(std::lround(d)) : 0;
}

void indentJson(const QJsonValue& value, int depth, QString& out) {
    const QString pad(2 * (depth + 1), u' ');
    const QString closePad(2 * depth, u' ');
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        if (o.isEmpty()) {
            out += QStringLiteral("{}");
            return;
        }
        out += QStringLiteral("{\n");
        for (auto it = o.begin(); it != o.end(); ++it) {
            out += pad;
            out += QString::fromUtf8(
                       QJsonDocument(QJsonArray{it.key()}).toJson(QJsonDocument::Compact))
                       .mid(1)
                       .chopped(1);
            out += QStringLiteral(": ");
            indentJson(it.value(), depth + 1, out);
            out += std::next(it) == o.end() ? QStringLiteral("\n") : QStringLiteral(",\n");
        }
        out += closePad + u'}';
        return;
    }
    if (value.isArray()) {
        const QJsonArray a = value.toArray();
        if (a.isEmpty()) {
            out += QStringLiteral("[]");
            return;
        }
        out += QStringLiteral("[\n");
        for (qsizetype i = 0; i < a.size(); ++i) {
            out += pad;
            indentJson(a.at(i), depth + 1, out);
            out += i + 1 == a.size() ? QStringLiteral("\n") : QStringLiteral(",\n");
        }
        out += closePad + u']';
        return;
    }
    // A scalar as JSON writes it (strings quoted and escaped, numbers in their shortest form).
    out += QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
               .mid(1)
               .chopped(1);
}

} // namespace

const QStringList& renderedMimeTypes() {
    static const QStringList types = {
        QLatin1String(kJobMimeType),        QLatin1String(kTuningMimeType),
        QStringLiteral("image/png"),        QStringLiteral("image/jpeg"),
        QStringLiteral("image/gif"),        QStringLiteral("image/svg+xml"),
        QStringLiteral("text/html"),        QStringLiteral("text/markdown"),
        QStringLiteral("application/json"), QStringLiteral("text/plain"),
        QStringLiteral("text/latex")};
    return types;
}

OutputChoice chooseOutput(const QJsonObject& output) {
    const QString type = output.value(QStringLiteral("output_type")).toString();
    if (type == QLatin1String("stream"))
        return {OutputKind::Stream, {}};
    if (type == QLatin1String("error"))
        return {OutputKind::Error, {}};
    const QJsonObject data = dataOf(output);
    for (const QString& mime : renderedMimeTypes()) {
        if (!data.contains(mime))
            continue;
        // A card without its name cannot follow anything: its twins show instead.
        if (mime == QLatin1String(kJobMimeType) && jobOfOutput(output).isEmpty())
            continue;
        if (mime == QLatin1String(kTuningMimeType) && tuningOfOutput(output).isEmpty())
            continue;
        return {kindOf(mime), mime};
    }
    return {OutputKind::Empty, {}};
}

QString mimeText(const QJsonObject& output, const QString& mimeType) {
    return joinedText(dataOf(output).value(mimeType));
}

QSize imageMetadataSize(const QJsonObject& output, const QString& mimeType) {
    const QJsonObject metadata = metadataOf(output);
    QJsonObject sized = metadata.value(mimeType).toObject();
    if (!sized.contains(QStringLiteral("width")) && !sized.contains(QStringLiteral("height")))
        sized = metadata;
    return {positive(sized.value(QStringLiteral("width"))),
            positive(sized.value(QStringLiteral("height")))};
}

QSize displayedImageSize(QSize pixels, QSize metadata) {
    if (pixels.isEmpty())
        return metadata.width() > 0 && metadata.height() > 0 ? metadata : QSize();
    if (metadata.width() > 0 && metadata.height() > 0)
        return metadata;
    if (metadata.width() > 0)
        return {metadata.width(), static_cast<int>(std::lround(double(pixels.height()) *
                                                               metadata.width() / pixels.width()))};
    if (metadata.height() > 0)
        return {static_cast<int>(
                    std::lround(double(pixels.width()) * metadata.height() / pixels.height())),
                metadata.height()};
    return pixels;
}

QString neededBackground(const QJsonObject& output) {
    const QString v = metadataOf(output).value(QStringLiteral("needs_background")).toString();
    return v == QLatin1String("light") || v == QLatin1String("dark") ? v : QString();
}

QString prettyJson(const QJsonValue& value) {
    QString out;
    indentJson(value, 0, out);
    return out;
}

QString jobOfOutput(const QJsonObject& output) {
    return dataOf(output)
        .value(QLatin1String(kJobMimeType))
        .toObject()
        .value(QStringLiteral("job"))
        .toString();
}

QString tuningOfOutput(const QJsonObject& output) {
    return dataOf(output)
        .value(QLatin1String(kTuningMimeType))
        .toObject()
        .value(QStringLiteral("tuning"))
        .toString();
}

} // namespace studio::models
