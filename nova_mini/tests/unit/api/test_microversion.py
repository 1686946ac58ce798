#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Microversions: parsing, negotiation, the compute history and the
version ranges of handlers (HTTP behaviour: gabbits/microversions.yaml).
"""

import importlib
import inspect
import pkgutil

import pytest
import webob

import nova_mini.api.baremetal as baremetal
from nova_mini.api.baremetal import versions as baremetal_versions
import nova_mini.api.compute as compute
from nova_mini.api.compute import versions
from nova_mini.api import faults
from nova_mini.api import microversion
from nova_mini.api import validation
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
    # What to send instead: the supported range.
    assert caught.value.format_message().endswith(
        'Must be of format MajorNum.MinorNum. Supported versions are 2.1 '
        'to 2.86, or latest.')


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
            if isinstance(value, APIVersion)}


def test_named_versions_are_in_the_history():
    history = [APIVersion(text) for text, _what in versions.HISTORY]
    named = _named_versions()
    assert named, 'versions.py names no version'
    assert named['SERVER_DESCRIPTION'] == (2, 19)
    for name, value in named.items():
        assert name.isupper(), name
        assert value in history, '%s = %s is not in HISTORY' % (name, value)


# Version ranges of the handlers, in both APIs

def _controller_classes(package):
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
    """The version gates ``[(min, max)]`` and schema lists ``[(kind,
    first versions)]`` decorating ``func``, outermost first.

    wsgi.expose copies the attributes of the layer it wraps, so its own
    wrapper (marked by ``exposed_status``) is skipped.
    """
    gates, schemas = [], []
    while func is not None:
        own = vars(func)
        if 'exposed_status' not in own:
            if 'validates' in own:
                schemas.append((own['validates'], own['schema_versions']))
            elif 'min_version' in own:
                gates.append((own['min_version'], own['max_version']))
        func = getattr(func, '__wrapped__', None)
    return gates, schemas


def _handlers():
    found = []
    for package, api in ((compute, COMPUTE),
                         (baremetal, baremetal_versions.BAREMETAL_API)):
        for cls in _controller_classes(package):
            for name, func in vars(cls).items():
                if callable(func) and any(_layers(func)):
                    found.append(('%s.%s' % (cls.__name__, name), api,
                                  func))
    return found


def test_handlers_are_found():
    names = {name for name, _api, _func in _handlers()}
    for expected in ('FlavorsController.post', 'FlavorsController.put',
                     'FlavorsController.get_all', 'FlavorsController.detail',
                     'FlavorActionController._add',
                     'FlavorActionController._remove',
                     'FlavorExtraSpecsController.post',
                     'FlavorExtraSpecsController.put',
                     'ServersController.post', 'NodesController.post',
                     'NodeTraitsController.put'):
        assert expected in names


@pytest.mark.parametrize('name, api, func', _handlers(),
                         ids=[name for name, _a, _f in _handlers()])
def test_handler_version_ranges(name, api, func):
    gates, schemas = _layers(func)
    assert len(gates) <= 1, '%s is gated more than once' % name
    lower, upper = gates[0] if gates else (None, None)
    lower, upper = lower or api.min_version, upper or api.max_version
    history = {APIVersion(text) for text, _what in api.history}
    assert lower in history and upper in history, name
    kinds = [kind for kind, _starts in schemas]
    assert len(kinds) == len(set(kinds)), (
        '%s: one schema decorator of each kind' % name)
    for kind, starts in schemas:
        # An open start is the handler's own first version.
        starts = [lower if start is None else start for start in starts]
        assert all(start in history for start in starts), (name, kind)
        assert lower <= starts[0] and starts[-1] <= upper, (
            '%s: %s schemas start outside the handler range %s-%s'
            % (name, kind, lower, upper))
        assert starts == sorted(set(starts)), (
            '%s: %s schemas never used' % (name, kind))
        if kind == 'body':
            # Every version that reaches the handler has its body checked.
            assert starts[0] == lower, (name, 'no body schema at first')


@pytest.mark.parametrize('schemas', [
    [(APIVersion('2.55'), {}), (APIVersion('2.55'), {})],
    [(APIVersion('2.55'), {}), (APIVersion('2.19'), {})],
    [(None, {}), (None, {})],
    [(APIVersion('2.19'), {}), (None, {})],
    [],
], ids=['same', 'decreasing', 'two-open', 'open-later', 'none'])
def test_schema_versions_must_increase(schemas):
    with pytest.raises(ValueError):
        validation.body(schemas)


# The negotiated versions and answer headers kept

def test_the_same_header_texts_negotiate_once():
    api = microversion.VersionedAPI(
        'compute', 'X-OpenStack-Nova-API-Version', COMPUTE.history)
    headers = {'OpenStack-API-Version': 'compute 2.60'}
    first = api.negotiate(webob.Request.blank('/', headers=headers).headers)
    again = api.negotiate(webob.Request.blank('/', headers=headers).headers)
    assert first == again == APIVersion('2.60')
    info = api._negotiated.cache_info()
    assert (info.hits, info.misses) == (1, 1)
    # No header at all is one entry too (the oldest version).
    assert api.negotiate(webob.Request.blank('/').headers) == (2, 1)
    # The legacy header is part of what is kept.
    assert api.negotiate(webob.Request.blank('/', headers={
        'X-OpenStack-Nova-API-Version': '2.70'}).headers) == (2, 70)


def test_a_refused_text_is_refused_every_time():
    api = microversion.VersionedAPI(
        'compute', 'X-OpenStack-Nova-API-Version', COMPUTE.history)
    for _ in range(2):
        with pytest.raises(exception.APIVersionNotSupported) as caught:
            api.negotiate(webob.Request.blank('/', headers={
                'OpenStack-API-Version': 'compute 3.0'}).headers)
        assert caught.value.kwargs['version'] == '3.0'
        with pytest.raises(exception.InvalidAPIVersion):
            api.negotiate(webob.Request.blank('/', headers={
                'OpenStack-API-Version': 'compute 2.x'}).headers)
    assert api._negotiated.cache_info().currsize == 0


def test_long_header_texts_are_not_kept():
    api = microversion.VersionedAPI(
        'compute', 'X-OpenStack-Nova-API-Version', COMPUTE.history)
    long_text = 'compute 2.60,' + ' ' * microversion.CACHED_TEXT_LENGTH
    assert api.negotiate(webob.Request.blank('/', headers={
        'OpenStack-API-Version': long_text}).headers) == (2, 60)
    assert api._negotiated.cache_info().currsize == 0


def test_response_headers_are_a_new_list_each_time():
    headers = COMPUTE.response_headers(APIVersion('2.61'))
    headers.append(('X-Extra', 'x'))
    assert COMPUTE.response_headers(APIVersion('2.61')) == [
        ('OpenStack-API-Version', 'compute 2.61'),
        ('X-OpenStack-Nova-API-Version', '2.61'),
        ('Vary', 'OpenStack-API-Version, X-OpenStack-Nova-API-Version')]
