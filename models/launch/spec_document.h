// The launch dialog's working copy of a job spec: an order-preserving JSON document, addressed by
// simple JSON pointers ("/distribution/mpi/processes_per_host"), and the text forms its values
// take in form fields. Keys the form does not know stay where they are.
#pragma once

#include <nlohmann/json.hpp>

#include <QString>

#include <string>
#include <string_view>

namespace studio::models {

using SpecDocument = nlohmann::ordered_json;

// The value at pointer ("" is the whole document), or nullptr when a step is missing.
const SpecDocument* findAt(const SpecDocument& doc, std::string_view pointer);
// The value at pointer, or null when it is absent.
SpecDocument valueAt(const SpecDocument& doc, std::string_view pointer);
// Sets the value at pointer, creating objects on the way (a non-object step becomes one).
void putAt(SpecDocument& doc, std::string_view pointer, SpecDocument value);
// Removes the key at pointer, then every parent object that this left empty.
void eraseAt(SpecDocument& doc, std::string_view pointer);

// The top-level keys in the order SPEC.md lists them; unknown keys follow in their own order.
SpecDocument canonicalOrder(const SpecDocument& doc);

// The spec as a file in toDir runs it: paths relative to fromDir (source_dir, inputs,
// checkpoint_local_path) become absolute, and a script job without source_dir gets fromDir as
// its working directory. Unchanged when both folders are the same.
SpecDocument rebasedSpec(const SpecDocument& doc, const QString& fromDir, const QString& toDir);

// How a value reads in a text field: strings as they are, other values as JSON.
QString valueText(const SpecDocument& value);

enum class TextTyping {
    Inferred,  // numbers and booleans become JSON numbers and booleans (hyperparameters)
    SageMaker, // strings, as SageMaker writes rule and collection parameters
};
// The value a field's text stands for. The previous value's kind wins where the text allows it,
// so a string "5" stays a string and a number stays a number; "" is null.
SpecDocument valueFromText(const QString& text, const SpecDocument& previous, TextTyping typing);

// A JSON number for a form value: integral values as integers (2, not 2.0).
SpecDocument numberValue(double v);

// True when a validation path ("rules[0].parameters.num_steps") lies at or under pattern, where
// "[]" in a pattern matches any index ("rules[].parameters").
bool pathMatches(std::string_view pattern, std::string_view path);

} // namespace studio::models
