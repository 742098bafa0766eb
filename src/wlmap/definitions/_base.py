"""The base model every definition type shares: frozen, camelCase on the wire."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class DefinitionModel(BaseModel):
    """Frozen pydantic model whose fields read and write the YAML vocabulary (camelCase).

    Unknown fields are rejected so that a typo in a definition is reported, not ignored.
    Validators are built when a model is first used (``defer_build``): the definition's
    validator covers the nested models, so building one per class at import is wasted.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,
    )
