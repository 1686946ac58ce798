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

"""json_patch.apply_to and its companions: operations on nested paths,
the errors (400s, as the handlers answered them), the values of removed
or nulled fields, and the stored-document rule (what the patch leaves
alone, and the masks sent back, stay as stored).
"""

import copy

import pytest

from nova_mini.api.baremetal import json_patch
from nova_mini.api import faults
from nova_mini import exception

M = json_patch.MASK
STORED = {'name': 'n', 'extra': {'a': {'b': [1, 2]}},
          'driver_info': {'user': 'u', 'password': 'pw'},
          'flag': True}


def _mask(info):
    return {key: M if key == 'password' else value
            for key, value in info.items()}


def _op(op, path, *value):
    operation = {'op': op, 'path': path}
    if value:
        operation['value'] = value[0]
    return operation


@pytest.mark.parametrize('patch, expected', [
    ([_op('add', '/extra/a/c', 3)], {'a': {'b': [1, 2], 'c': 3}}),
    ([_op('add', '/extra/a/b/1', 9)], {'a': {'b': [1, 9, 2]}}),
    ([_op('add', '/extra/a/b/-', 9)], {'a': {'b': [1, 2, 9]}}),
    ([_op('replace', '/extra/a/b/0', 0)], {'a': {'b': [0, 2]}}),
    ([_op('remove', '/extra/a/b/1')], {'a': {'b': [1]}}),
    ([_op('remove', '/extra/a')], {}),
    ([_op('add', '/extra/x~1y~0z', 1)], {'a': {'b': [1, 2]}, 'x/y~z': 1}),
])
def test_nested_paths(patch, expected):
    before = copy.deepcopy(STORED)
    patched = json_patch.apply_to(STORED, patch)
    assert patched['extra'] == expected
    assert STORED == before


@pytest.mark.parametrize('operation, message', [
    (_op('add', '/extra/x/y', 1), "Patch path '/extra/x/y' does not exist"),
    (_op('replace', '/extra/a/b/2', 1),
     "Patch path '/extra/a/b/2' is out of range"),
    (_op('add', '/extra/a/b/01', 1),
     "Invalid list index in patch path '/extra/a/b/01'"),
    (_op('remove', '/extra/z'), "Can't remove non-existent object 'z'"),
    (_op('replace', '/extra/z', 1), "Can't replace non-existent object 'z'"),
    (_op('add', '/extra/a'),
     "'add' and 'replace' operations need a value"),
    (_op('add', '/name/x', 1), "Patch path '/name/x' does not exist"),
])
def test_errors_are_400s(operation, message):
    with pytest.raises(exception.Invalid) as error:
        json_patch.apply_to(STORED, [operation])
    assert faults.status_of(error.value) == 400
    assert error.value.format_message() == message


def test_removed_and_empty_fields_take_their_values():
    patch = [_op('remove', '/name'), _op('remove', '/extra'),
             _op('replace', '/flag', None)]
    patched = json_patch.apply_to(STORED, patch, removed={'name': None},
                                  empty={'extra': {}, 'flag': True})
    assert (patched['name'], patched['extra'], patched['flag']) == (
        None, {}, True)
    # Removed, not nulled: ``removed`` only; nulled: ``empty`` only.
    patched = json_patch.apply_to(
        STORED, [_op('remove', '/flag'), _op('replace', '/name', None)],
        removed={'flag': False})
    assert (patched['flag'], patched['name']) == (False, None)
    patched = json_patch.apply_to(STORED, [_op('replace', '/flag', None)],
                                  removed={'flag': False})
    assert patched['flag'] is None


def test_defaults_are_not_shared():
    empty = {'extra': {}}
    patched = json_patch.apply_to(STORED, [_op('remove', '/extra')],
                                  empty=empty)
    patched['extra']['x'] = 1
    assert empty == {'extra': {}}


def test_untouched_secrets_stay_as_stored():
    patched = json_patch.apply_to(
        STORED, [_op('add', '/driver_info/port', 623)],
        masked={'driver_info': _mask})
    assert patched['driver_info'] == {'user': 'u', 'password': 'pw',
                                      'port': 623}


def test_the_view_sent_back_is_the_stored_document():
    shown = _mask(STORED['driver_info'])
    patched = json_patch.apply_to(
        STORED, [_op('replace', '/driver_info', dict(shown, user='v'))],
        masked={'driver_info': _mask})
    assert patched['driver_info'] == {'user': 'v', 'password': 'pw'}
    patched = json_patch.apply_to(
        STORED, [_op('replace', '/driver_info/password', M)],
        masked={'driver_info': _mask})
    assert patched['driver_info']['password'] == 'pw'


def test_a_mask_with_no_secret_behind_it_is_refused():
    with pytest.raises(exception.Invalid) as error:
        json_patch.apply_to(STORED, [_op('add', '/driver_info/token', M)],
                            masked={'driver_info': _mask})
    assert '/driver_info/token' in error.value.format_message()


def test_a_new_secret_is_stored():
    patched = json_patch.apply_to(
        STORED, [_op('replace', '/driver_info/password', 'new')],
        masked={'driver_info': _mask})
    assert patched['driver_info']['password'] == 'new'


def test_a_removed_masked_field_is_not_judged():
    patched = json_patch.apply_to(STORED, [_op('remove', '/driver_info')],
                                  empty={'driver_info': {}},
                                  masked={'driver_info': _mask})
    assert patched['driver_info'] == {}


def test_changes_are_the_fields_that_differ():
    patched = json_patch.apply_to(
        STORED, [_op('replace', '/name', 'm'), _op('replace', '/flag', True)])
    assert json_patch.changes(STORED, patched) == {'name': 'm'}


def test_check_fields():
    patch = [_op('add', '/extra/a', 1), _op('remove', '/uuid')]
    with pytest.raises(exception.Invalid) as error:
        json_patch.check_fields(patch, ('extra', 'name'))
    assert error.value.format_message() == \
        "'/uuid' is an internal attribute and can not be updated"
    with pytest.raises(exception.Invalid) as error:
        json_patch.check_fields(
            patch, ('extra', 'name'),
            'Cannot patch %(path)s. Only the following can be updated: '
            '%(patchable)s.')
    assert error.value.format_message() == \
        'Cannot patch /uuid. Only the following can be updated: extra, name.'
    json_patch.check_fields(patch[:1], ('extra',))
