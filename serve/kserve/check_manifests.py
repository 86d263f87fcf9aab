"""Checks the KServe manifests here against KServe's own API models.

Every field of each document must be one that KServe's Python SDK declares
for that kind (ServingRuntime, InferenceService, and the Kubernetes types
they embed), holding a value of the type it declares. A cluster checks
more (admission webhooks, enum values); this catches misspelt or misplaced
fields without one. Not run in CI (it needs the SDK from PyPI):

  python3 -m venv build/kserve-venv
  build/kserve-venv/bin/pip install kserve==0.21.0 pyyaml==6.0.4
  build/kserve-venv/bin/python serve/kserve/check_manifests.py \
      serve/kserve/servingruntime.yaml serve/kserve/inferenceservice.yaml
"""
import re
import sys

import kubernetes.client
import yaml
from kserve import models as kserve_models

ROOT_TYPES = {
    ("serving.kserve.io/v1alpha1", "ServingRuntime"): "V1alpha1ServingRuntime",
    ("serving.kserve.io/v1beta1", "InferenceService"):
        "V1beta1InferenceService",
}
SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def model_class(type_name):
    for module in (kserve_models, kubernetes.client):
        if hasattr(module, type_name):
            return getattr(module, type_name)
    return None


def check(value, type_name, path, problems):
    """Appends to problems each field or value at or under path that the
    declared type_name does not allow."""
    type_name = type_name.strip()
    listed = re.fullmatch(r"[lL]ist\[(.*)\]", type_name)
    if listed:
        if not isinstance(value, list):
            problems.append(f"{path}: a list expected, got {value!r}")
            return
        for i, item in enumerate(value):
            check(item, listed.group(1), f"{path}[{i}]", problems)
        return
    mapped = re.fullmatch(r"(?:dict\(|Dict\[)[^,]*, (.*)[)\]]", type_name)
    if mapped:
        if not isinstance(value, dict):
            problems.append(f"{path}: a mapping expected, got {value!r}")
            return
        for key, item in value.items():
            check(item, mapped.group(1), f"{path}.{key}", problems)
        return
    if type_name in SCALARS:
        # YAML's true is a bool, which Python also counts as an int.
        if not isinstance(value, SCALARS[type_name]) or (
                type_name != "bool" and isinstance(value, bool)):
            problems.append(f"{path}: {type_name} expected, got {value!r}")
        return
    if type_name in ("object", "datetime"):
        return
    cls = model_class(type_name)
    if cls is None:
        problems.append(f"{path}: type {type_name} unknown to the SDK")
        return
    if not isinstance(value, dict):
        problems.append(f"{path}: {type_name} (a mapping) expected, "
                        f"got {value!r}")
        return
    attribute_of = {key: attr for attr, key in cls.attribute_map.items()}
    for key, item in value.items():
        if key not in attribute_of:
            problems.append(f"{path}.{key}: no such field in {type_name}")
            continue
        check(item, cls.openapi_types[attribute_of[key]], f"{path}.{key}",
              problems)


def main(paths):
    problems = []
    checked = 0
    for path in paths:
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc is None:
                    continue
                if not isinstance(doc, dict):
                    problems.append(f"{path}: a document that is not a "
                                    f"mapping: {doc!r}")
                    continue
                key = (doc.get("apiVersion"), doc.get("kind"))
                metadata = doc.get("metadata")
                name = (metadata.get("name", "?")
                        if isinstance(metadata, dict) else "?")
                if key not in ROOT_TYPES:
                    problems.append(f"{path}: {key} is not a kind this knows")
                    continue
                check(doc, ROOT_TYPES[key], f"{path}:{key[1]}/{name}",
                      problems)
                checked += 1
    for problem in problems:
        print(problem)
    print(f"{checked} documents, {len(problems)} problems")
    return 1 if problems or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
