// Fuzzes the notebook reader: any bytes are a notebook or a NotebookError, and a notebook that
// was read is written so that it reads again with the same cells (a lone surrogate, which no
// UTF-8 file holds, comes back as U+FFFD).
#include "models/notebook/nbformat_json.h"
#include "models/notebook/notebook_document.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using studio::models::NotebookDocument;
using studio::models::NotebookError;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray json(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    NotebookDocument doc;
    try {
        doc = NotebookDocument::fromJson(json, QStringLiteral("fuzz.ipynb"));
    } catch (const NotebookError&) {
        return 0; // the documented answer to a bad file
    }
    const QByteArray saved = doc.toJson();
    try {
        const NotebookDocument again = NotebookDocument::fromJson(saved);
        if (again.cells.size() != doc.cells.size())
            std::abort();
        for (qsizetype i = 0; i < doc.cells.size(); ++i)
            if (again.cells[i].source !=
                    studio::models::withoutLoneSurrogates(doc.cells[i].source) ||
                again.cells[i].id != studio::models::withoutLoneSurrogates(doc.cells[i].id))
                std::abort();
    } catch (const NotebookError& e) {
        std::fprintf(stderr, "a saved notebook does not read again: %s\n", e.what());
        std::abort();
    }
    return 0;
}
