"""Microversions: parsing, negotiation, the compute history and the
version ranges of handlers (HTTP behaviour: gabbits/microversions.yaml).
"""

import importlib
import inspect
import pkgutil

import pytest
import webob

from nova_mini.api.compute import versions
from nova_mini.api import microversion
from nova_mini import exception

APIVersion = microversion.APIVersion
COMPUTE = versions.COMPUTE_API


# Parsing

@pytest.mark.parametrize('text, expected', [
    ('2.1', (2, 1)),
    ('2.10', (2, 10)),
    ('2.86', (2, 86)),
    ('2.0', (2, 0)),
    ('3.0', (3, 0)),
    ('10.200', (10, 200)),
])
def test_parse_valid(text, expected):
    version = APIVersion(text)
    assert version == expected
    assert str(version) == text


@pytest.mark.parametrize('text', [
    '2.01', '02.1', '2', '2.', '.1', '2.x', 'x.1', 'foo', '', ' 2.1',
    '2.1 ', '2..1', '2.1.0', '0.1', '-2.1', '2.-1', 'latest', 'LATEST',
    'Latest', '２.１',
])
def test_parse_invalid(text):
    with pytest.raises(exception.InvalidAPIVersion) as caught:
        APIVersion(text)
    assert caught.value.format_message() == (
        'API Version String %s is of invalid format. Must be of format '
        'MajorNum.MinorNum.' % text)


def test_versions_compare_as_numbers():
    assert APIVersion('2.10') > APIVersion('2.9')
    assert APIVersion('3.0') > APIVersion('2.86')
    assert sorted([APIVersion('2.10'), APIVersion('2.2'),
                   APIVersion('2.1')]) == [(2, 1), (2, 2), (2, 10)]


# Negotiation

def _negotiate(headers):
    return COMPUTE.negotiate(webob.Request.blank('/', headers=headers)
                             .headers)


@pytest.mark.parametrize('headers, expected', [
    ({}, '2.1'),
    ({'OpenStack-API-Version': 'compute 2.55'}, '2.55'),
    ({'OpenStack-API-Version': 'compute latest'}, '2.86'),
    ({'OpenStack-API-Version': 'Compute 2.55'}, '2.55'),
    ({'OpenStack-API-Version': 'COMPUTE 2.60'}, '2.60'),
    ({'OpenStack-API-Version': 'volume 3.0'}, '2.1'),
    ({'OpenStack-API-Version': 'volume 3.0, compute 2.60'}, '2.60'),
    ({'OpenStack-API-Version': 'compute 2.60,volume 3.0'}, '2.60'),
    ({'OpenStack-API-Version': ''}, '2.1'),
    ({'OpenStack-API-Version': 'compute'}, '2.1'),
    ({'X-OpenStack-Nova-API-Version': '2.50'}, '2.50'),
    ({'X-OpenStack-Nova-API-Version': 'latest'}, '2.86'),
    ({'OpenStack-API-Version': 'compute 2.60',
      'X-OpenStack-Nova-API-Version': '2.50'}, '2.60'),
    ({'OpenStack-API-Version': 'volume 3.0',
      'X-OpenStack-Nova-API-Version': '2.50'}, '2.50'),
    ({'openstack-api-version': 'compute 2.61'}, '2.61'),
])
def test_negotiate(headers, expected):
    assert _negotiate(headers) == APIVersion(expected)


@pytest.mark.parametrize('headers, text', [
    ({'OpenStack-API-Version': 'compute 2.x'}, '2.x'),
    ({'OpenStack-API-Version': 'compute 2.01'}, '2.01'),
    ({'OpenStack-API-Version': 'compute 2'}, '2'),
    ({'OpenStack-API-Version': 'compute LATEST'}, 'LATEST'),
    ({'X-OpenStack-Nova-API-Version': 'foo'}, 'foo'),
    # A malformed compute entry wins over a good legacy header.
    ({'OpenStack-API-Version': 'compute foo',
      'X-OpenStack-Nova-API-Version': '2.50'}, 'foo'),
])
def test_negotiate_malformed(headers, text):
    with pytest.raises(exception.InvalidAPIVersion) as caught:
        _negotiate(headers)
    assert caught.value.kwargs['version'] == text


@pytest.mark.parametrize('text', ['2.0', '2.87', '2.104', '2.200', '3.0',
                                  '1.1'])
def test_negotiate_out_of_range(text):
    with pytest.raises(exception.APIVersionNotSupported) as caught:
        _negotiate({'OpenStack-API-Version': 'compute %s' % text})
    assert caught.value.format_message() == (
        'Version %s is not supported by the API. Minimum is 2.1 and '
        'maximum is 2.86.' % text)
    assert caught.value.kwargs['version'] == text


def test_out_of_range_is_406_and_malformed_400():
    from nova_mini.api import faults
    assert faults.status_of(exception.APIVersionNotSupported(
        version='3.0', min_version='2.1', max_version='2.86')) == 406
    assert faults.status_of(exception.InvalidAPIVersion(version='x')) == 400


def test_response_headers_and_vary():
    headers = dict(COMPUTE.response_headers(APIVersion('2.60')))
    assert headers['OpenStack-API-Version'] == 'compute 2.60'
    assert headers['X-OpenStack-Nova-API-Version'] == '2.60'
    vary = [v.strip() for v in headers['Vary'].split(',')]
    assert sorted(vary) == ['OpenStack-API-Version',
                            'X-OpenStack-Nova-API-Version']


# The compute history

def test_history_starts_at_2_1_and_ends_at_2_86():
    assert versions.HISTORY[0][0] == '2.1'
    assert versions.HISTORY[-1][0] == '2.86'
    assert COMPUTE.min_version == (2, 1)
    assert COMPUTE.max_version == (2, 86)


def test_history_is_strictly_increasing_without_gaps():
    parsed = [APIVersion(text) for text, _what in versions.HISTORY]
    for previous, current in zip(parsed, parsed[1:]):
        assert current[0] == previous[0]
        assert current[1] == previous[1] + 1, (previous, current)


def test_history_entries_say_what_changed():
    for text, what in versions.HISTORY:
        assert isinstance(what, str) and what.strip(), text
        assert str(APIVersion(text)) == text


def _named_versions():
    return {name: value for name, value in vars(versions).items()
            if name.isupper() and isinstance(value, str)}


def test_named_versions_are_in_the_history():
    history = {text for text, _what in versions.HISTORY}
    named = _named_versions()
    assert named, 'versions.py names no version'
    for name, value in named.items():
        assert value in history, '%s = %r is not in HISTORY' % (name, value)


def test_previous_names_precede_their_pair():
    named = _named_versions()
    history = [text for text, _what in versions.HISTORY]
    pairs = [name for name in named if name.endswith('_PREVIOUS')]
    assert pairs
    for previous_name in pairs:
        name = previous_name[:-len('_PREVIOUS')]
        assert name in named, '%s has no %s' % (previous_name, name)
        assert history.index(named[previous_name]) + 1 == history.index(
            named[name]), (previous_name, name)


# Version ranges of the handlers

def _controller_classes():
    import nova_mini.api.compute as package
    classes = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module('%s.%s' % (package.__name__,
                                                    info.name))
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and \
                    cls.__name__.endswith('Controller'):
                classes.add(cls)
    return sorted(classes, key=lambda cls: cls.__qualname__)


def _layers(func):
    """The version-ranged decorators stacked on ``func``, outermost first.

    wsgi.expose copies the attributes of the layer it wraps, so its own
    wrapper (marked by ``exposed_status``) is skipped.
    """
    layers = []
    while func is not None:
        own = vars(func)
        if 'min_version' in own and 'exposed_status' not in own:
            layers.append((own.get('validates'), own['min_version'],
                           own['max_version']))
        func = getattr(func, '__wrapped__', None)
    return layers


def _handlers():
    found = []
    for cls in _controller_classes():
        for name, func in vars(cls).items():
            if callable(func) and _layers(func):
                found.append(('%s.%s' % (cls.__name__, name), func))
    return found


def _bounds(lower, upper):
    return (lower or COMPUTE.min_version, upper or COMPUTE.max_version)


def test_handlers_are_found():
    names = {name for name, _func in _handlers()}
    for expected in ('FlavorsController.post', 'FlavorsController.put',
                     'FlavorsController.get_all', 'FlavorsController.detail',
                     'FlavorActionController._add',
                     'FlavorActionController._remove',
                     'FlavorExtraSpecsController.post',
                     'FlavorExtraSpecsController.put'):
        assert expected in names


@pytest.mark.parametrize('name, func', _handlers(),
                         ids=[name for name, _f in _handlers()])
def test_handler_version_ranges(name, func):
    layers = _layers(func)
    gates = [_bounds(lower, upper) for kind, lower, upper in layers
             if kind is None]
    assert len(gates) <= 1, '%s is gated more than once' % name
    gate = gates[0] if gates else _bounds(None, None)
    history = {APIVersion(text) for text, _what in versions.HISTORY}
    for kind in ('body', 'query'):
        # An open end of a schema range is the handler's own end.
        ranges = sorted((lower or gate[0], upper or gate[1])
                        for k, lower, upper in layers if k == kind)
        for lower, upper in ranges:
            assert lower <= upper, (name, kind, lower, upper)
            assert lower in history and upper in history, (name, kind)
            assert gate[0] <= lower and upper <= gate[1], (
                '%s: %s schema range %s-%s outside the handler range'
                % (name, kind, lower, upper))
        for (_l1, upper1), (lower2, _u2) in zip(ranges, ranges[1:]):
            assert upper1 < lower2, (
                '%s: %s schema ranges overlap at %s' % (name, kind, lower2))
        if kind == 'body' and ranges:
            # Every version that reaches the handler has its body checked.
            assert ranges[0][0] == gate[0], (name, 'gap at the start')
            assert ranges[-1][1] == gate[1], (name, 'gap at the end')
            for (_l1, upper1), (lower2, _u2) in zip(ranges, ranges[1:]):
                assert (upper1[0], upper1[1] + 1) == lower2, (
                    '%s: no body schema between %s and %s'
                    % (name, upper1, lower2))


def test_overlap_is_detected():
    # The invariant above must be able to fail: two stacked body schemas
    # claiming 2.55 are reported.
    from nova_mini.api import validation

    @validation.body({}, max_version='2.55')
    @validation.body({}, min_version='2.55')
    def handler(self):
        pass

    ranges = sorted(_bounds(lower, upper)
                    for _k, lower, upper in _layers(handler))
    assert ranges[0][1] >= ranges[1][0]
