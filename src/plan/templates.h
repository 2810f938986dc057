#pragma once
// The WGSL templates of a package, checked when the package is loaded (not at the first call): every
// pass's shader parses (with its `{% include %}`s, read from the package's own verified files only)
// and its `#param` header declares exactly the names it reads, each one the manifest provides.
#include <functional>
#include <string>

#include "contract/contract.h"

namespace wgk::plan {

/// Reads a file of the package's build/webgpu/ by its path there (the store's verified bytes); throws
/// wgk::Error when the package has no such file.
using PackageFiles = std::function<std::string(const std::string& name)>;

/// For each distinct pass shader of `contract`: parses it (includes resolved through `files`), then
/// checks its `#param` header (docs/kernel-conventions.md "Template parameters"): required for the
/// current manifest format when the template reads any name (a legacy package's templates are checked
/// only when they have one); the
/// declared names equal tmpl::Template::names() (with what includes read); each one is a scope root
/// (`shapes`, `ranks`, `dtypes`, `present`, `attrs`, `tunables`, `device`), a manifest derive, or a
/// derive of a variant or pass that uses the shader. Throws wgk::Error (kContract)
/// "<origin>: <shader>: ..." naming the name and the rule; parse and include errors as
/// tmpl::Template::parse raises them, prefixed with `origin`.
void check_templates(const contract::Contract& contract, const PackageFiles& files, const std::string& origin);

}  // namespace wgk::plan
