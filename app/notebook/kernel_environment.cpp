#include "app/notebook/kernel_environment.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace studio::notebook {

QString studioCliPath() {
    const QString chosen = qEnvironmentVariable("MLSTUDIO_CLI");
    if (!chosen.isEmpty())
        return chosen;
    if (QCoreApplication::instance()) {
        const QFileInfo self(QCoreApplication::applicationFilePath());
        if (self.fileName() == QLatin1String("mlstudio"))
            return self.absoluteFilePath();
        const QFileInfo beside(self.dir().filePath(QStringLiteral("mlstudio")));
        if (beside.isExecutable())
            return beside.absoluteFilePath();
    }
    return QStringLiteral("mlstudio");
}

QMap<QString, QString> studioKernelEnvironment(const QString& home) {
    QMap<QString, QString> env;
    env.insert(QStringLiteral("MLSTUDIO_CLI"), studioCliPath());
    // ipykernel's debugger otherwise warns on every start that Debian's Python freezes modules.
    env.insert(QStringLiteral("PYDEVD_DISABLE_FILE_VALIDATION"), QStringLiteral("1"));
    if (!home.isEmpty())
        env.insert(QStringLiteral("MLSTUDIO_HOME"), home);
    const QString tree = QStringLiteral(STUDIO_PYTHON_SOURCE_DIR);
    if (QFileInfo(tree + QStringLiteral("/mlstudio/__init__.py")).isFile()) {
        const QString inherited = qEnvironmentVariable("PYTHONPATH");
        env.insert(QStringLiteral("PYTHONPATH"),
                   inherited.isEmpty() ? tree : tree + QLatin1Char(':') + inherited);
    }
    return env;
}

} // namespace studio::notebook
