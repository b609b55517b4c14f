#include "models/shell/example_catalog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSet>

namespace studio::models {

namespace {

Example::Kind kindOf(const QString& text) {
    if (text == QLatin1String("tuning"))
        return Example::Kind::Tuning;
    if (text == QLatin1String("notebook"))
        return Example::Kind::Notebook;
    return Example::Kind::Job;
}

// Every example file the catalog must list, relative to the root.
QStringList exampleFiles(const QString& root) {
    QStringList out;
    for (const QString& f : QDir(root + QStringLiteral("/examples"))
                                .entryList({QStringLiteral("*.json")}, QDir::Files))
        out << QStringLiteral("examples/") + f;
    for (const QString& f : QDir(root + QStringLiteral("/notebooks"))
                                .entryList({QStringLiteral("*.ipynb")}, QDir::Files))
        out << QStringLiteral("notebooks/") + f;
    return out;
}

} // namespace

ExampleCatalog ExampleCatalog::load(const QString& resourcesRoot) {
    ExampleCatalog c;
    const QString listPath = resourcesRoot + QStringLiteral("/welcome.json");
    QFile file(listPath);
    if (!file.open(QIODevice::ReadOnly)) {
        c.problems << QObject::tr("%1: cannot be read (%2)").arg(listPath, file.errorString());
        return c;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (doc.isNull()) {
        c.problems << QObject::tr("%1: %2 at byte %3")
                          .arg(listPath, error.errorString())
                          .arg(error.offset);
        return c;
    }
    QSet<QString> listed;
    const QJsonArray entries = doc.object().value(QStringLiteral("examples")).toArray();
    for (int i = 0; i < entries.size(); ++i) {
        const QJsonObject o = entries.at(i).toObject();
        const QString rel = o.value(QStringLiteral("file")).toString();
        Example e;
        e.kind = kindOf(o.value(QStringLiteral("kind")).toString());
        e.path = QDir(resourcesRoot).filePath(rel);
        e.title = o.value(QStringLiteral("title")).toString();
        e.shows = o.value(QStringLiteral("shows")).toString();
        e.seconds = o.value(QStringLiteral("seconds")).toInt();
        e.cluster = o.value(QStringLiteral("cluster")).toString();
        if (rel.isEmpty() || e.title.isEmpty() || e.shows.isEmpty() || e.seconds <= 0) {
            c.problems << QObject::tr("%1: examples[%2] needs file, title, shows and seconds")
                              .arg(listPath)
                              .arg(i);
            continue;
        }
        if (!QFileInfo::exists(e.path)) {
            c.problems << QObject::tr("%1: examples[%2]: %3 does not exist")
                              .arg(listPath)
                              .arg(i)
                              .arg(e.path);
            continue;
        }
        listed.insert(rel);
        c.examples.push_back(std::move(e));
    }
    for (const QString& rel : exampleFiles(resourcesRoot))
        if (!listed.contains(rel))
            c.problems << QObject::tr("%1: %2 is not listed").arg(listPath, rel);
    return c;
}

QString durationText(int seconds) {
    if (seconds < 90)
        return QObject::tr("about %1 s").arg(seconds);
    return QObject::tr("about %1 min").arg((seconds + 30) / 60);
}

} // namespace studio::models
