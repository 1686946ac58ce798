"""JSON-schema validation of request bodies and query strings.

``body`` and ``query`` are the only ways handlers validate input. Each
takes a schema and an optional microversion range, so a handler stacks one
decorator per range where its schema changed. Validators are compiled once,
at import time.
"""

import functools

import jsonschema
import pecan

from nova_mini.api import microversion
from nova_mini import exception

_FORMAT_CHECKER = jsonschema.FormatChecker()


def _number(validator, instance):
    """The numeric value of a number or of a string holding one."""
    if isinstance(instance, str):
        for convert in (int, float):
            try:
                return convert(instance)
            except ValueError:
                pass
        return None
    if validator.is_type(instance, 'number'):
        return instance
    return None


def _minimum(validator, minimum, instance, schema):
    # Bounds apply to numeric strings too ("512" for a RAM size), and so
    # does exclusiveMinimum (Nova forgets that one and fails later).
    value = _number(validator, instance)
    if value is None:
        return
    if schema.get('exclusiveMinimum', False):
        if value <= minimum:
            yield jsonschema.ValidationError(
                '%s is less than or equal to the minimum of %s'
                % (value, minimum))
    elif value < minimum:
        yield jsonschema.ValidationError(
            '%s is less than the minimum of %s' % (value, minimum))


def _maximum(validator, maximum, instance, schema):
    value = _number(validator, instance)
    if value is None:
        return
    if schema.get('exclusiveMaximum', False):
        if value >= maximum:
            yield jsonschema.ValidationError(
                '%s is greater than or equal to the maximum of %s'
                % (value, maximum))
    elif value > maximum:
        yield jsonschema.ValidationError(
            '%s is greater than the maximum of %s' % (value, maximum))


_Validator = jsonschema.validators.extend(
    jsonschema.Draft4Validator, {'minimum': _minimum, 'maximum': _maximum})


def _validator(schema):
    _Validator.check_schema(schema)
    return _Validator(schema, format_checker=_FORMAT_CHECKER)


def _in_range(version, lower, upper):
    return (lower is None or version >= lower) and (
        upper is None or version <= upper)


def _first_error(validator, instance):
    """The first violation in the schema's keyword order, or None."""
    return next(iter(validator.iter_errors(instance)), None)


def _body_message(error):
    """Nova's wording: the innermost field, its value, what is wrong."""
    if error.path:
        return ('Invalid input for field/attribute %s. Value: %s. %s'
                % (error.path[-1], _short(error.instance), error.message))
    return error.message


def _short(value, limit=300):
    text = str(value)
    return text if len(text) <= limit else text[:limit] + '...'


# Bodies are JSON; a missing Content-Type or text/plain is taken as JSON
# too, as Nova does for old clients.
_JSON_TYPES = frozenset(['', 'application/json', 'text/plain'])


def request_json(req):
    """The request body as JSON, refusing other media types (415)."""
    if req.content_type not in _JSON_TYPES:
        raise exception.UnsupportedMediaType()
    return req.json


def body(schema, min_version=None, max_version=None):
    """Validate the JSON request body against ``schema``."""
    validator = _validator(schema)
    lower = microversion.APIVersion(min_version) if min_version else None
    upper = microversion.APIVersion(max_version) if max_version else None

    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args):
            req = pecan.request
            if _in_range(req.api_version, lower, upper):
                error = _first_error(validator, request_json(req))
                if error is not None:
                    raise exception.ValidationError(
                        detail=_body_message(error))
            return func(self, *args)
        return wrapper
    return decorator


def query(schema, min_version=None, max_version=None):
    """Validate the query string, as a dict of lists, against ``schema``."""
    validator = _validator(schema)
    lower = microversion.APIVersion(min_version) if min_version else None
    upper = microversion.APIVersion(max_version) if max_version else None

    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args):
            req = pecan.request
            if _in_range(req.api_version, lower, upper):
                error = _first_error(validator, req.GET.dict_of_lists())
                if error is not None:
                    name = error.path[0] if error.path else ''
                    raise exception.ValidationError(
                        detail='Invalid input for query parameters %s. '
                               'Value: %s. %s' % (
                                   name, _short(error.instance),
                                   error.message))
            return func(self, *args)
        return wrapper
    return decorator


def single_param(schema):
    """A query parameter given at most once (a list of one)."""
    return {'type': 'array', 'items': schema, 'maxItems': 1}


def multi_params(schema):
    return {'type': 'array', 'items': schema}
