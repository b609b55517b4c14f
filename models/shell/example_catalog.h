// The examples the welcome tab offers: resources/welcome.json lists each spec, tuning spec and
// notebook of resources/ with a title, what it shows and how long it took on this kind of
// machine. load() reads the list and checks it against the files (an entry whose file is gone
// and a file with no entry are both named in problems(), so the list cannot drift from the
// examples the tests run).
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace studio::models {

struct Example {
    enum class Kind { Job, Tuning, Notebook };
    Kind kind = Kind::Job;
    QString path; // absolute
    QString title;
    QString shows;   // what it shows, one sentence
    int seconds = 0; // measured here: 2 cores, no GPU
    QString cluster; // the cluster it needs ("" runs on this machine)
};

struct ExampleCatalog {
    std::vector<Example> examples;
    QStringList problems;

    // resourcesRoot holds welcome.json, examples/ and notebooks/.
    static ExampleCatalog load(const QString& resourcesRoot);
};

QString durationText(int seconds); // "about 40 s", "about 3 min"

} // namespace studio::models
