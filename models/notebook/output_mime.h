// What a notebook output shows: the kind of view for each nbformat output object (stream,
// error, or the representation of a rich result the studio renders best), the size its
// metadata asks an image to have, and application/json pretty-printed. Qt Core only; plain
// functions, any thread.
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QSize>
#include <QString>
#include <QStringList>

namespace studio::models {

enum class OutputKind {
    Stream,
    Error,
    JobCard,    // kJobMimeType: a live training job card
    TuningCard, // kTuningMimeType: a live tuning job card
    Image,      // image/png, image/jpeg, image/gif (base64)
    Svg,        // image/svg+xml
    Html,
    Markdown,
    Json,
    Text, // text/plain, or a type shown as its source (text/latex without a text/plain twin)
    Empty // a rich output with nothing the studio can show
};

struct OutputChoice {
    OutputKind kind = OutputKind::Empty;
    QString mimeType; // the chosen representation ("" for streams, errors and Empty)
};

// The MIME types the studio renders, richest first: its own job and tuning cards, images, SVG,
// HTML, markdown, JSON, plain text, and LaTeX as its source text when nothing else is there.
const QStringList& renderedMimeTypes();

// How an output is shown; a display_data or execute_result takes the first of
// renderedMimeTypes() its data holds.
OutputChoice chooseOutput(const QJsonObject& output);

// The representation's value as text: a string or an array of lines (nbformat stores both).
QString mimeText(const QJsonObject& output, const QString& mimeType);

// The size the output's metadata gives an image of this type (metadata[mimeType].width and
// height, or metadata.width and height), in logical pixels; 0 where it gives none. A width alone
// keeps the image's aspect ratio.
QSize imageMetadataSize(const QJsonObject& output, const QString& mimeType);

// The natural size of an image of `pixels` as the metadata asks for it.
QSize displayedImageSize(QSize pixels, QSize metadata);

// "light" or "dark" when the output asks for a background behind a transparent image
// (metadata.needs_background), "" otherwise.
QString neededBackground(const QJsonObject& output);

// application/json indented by two spaces, one member per line (keys sorted, as QJsonObject
// keeps them).
QString prettyJson(const QJsonValue& value);

// The job a job card output shows (data[kJobMimeType].job), "" when it is not one.
QString jobOfOutput(const QJsonObject& output);
// The tuning job a tuning card output shows (data[kTuningMimeType].tuning), "" when not one.
QString tuningOfOutput(const QJsonObject& output);

} // namespace studio::models
