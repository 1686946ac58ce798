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

"""json_patch.keep_masked: the masks a client sends back stand for the
stored secrets; a mask with nothing behind it is refused.
"""

import pytest

from nova_mini.api.baremetal import json_patch
from nova_mini import exception

M = json_patch.MASK
STORED = {'user': 'u', 'password': 'pw', 'nested': {'key': 'k'},
          'steps': [{'args': {'password': 'a'}}, {'args': {'password': 'b'}}]}
SHOWN = {'user': 'u', 'password': M, 'nested': {'key': M},
         'steps': [{'args': {'password': M}}, {'args': {'password': M}}]}


def test_echo_of_the_view_is_the_stored_value():
    assert json_patch.keep_masked(SHOWN, STORED, SHOWN, '/f') == STORED


def test_changed_keys_kept_and_masks_restored():
    patched = dict(SHOWN, user='v', nested={'key': M, 'more': 1})
    assert json_patch.keep_masked(patched, STORED, SHOWN, '/f') == dict(
        STORED, user='v', nested={'key': 'k', 'more': 1})


def test_new_secret_stored():
    patched = dict(SHOWN, password='new')
    assert json_patch.keep_masked(
        patched, STORED, SHOWN, '/f')['password'] == 'new'


def test_unchanged_list_element_restored_moved_one_refused():
    patched = dict(SHOWN, steps=[SHOWN['steps'][0]])
    assert json_patch.keep_masked(patched, STORED, SHOWN, '/f')['steps'] == \
        [STORED['steps'][0]]
    # The second step moved to the first place: its mask is not the
    # first step's secret.
    patched = dict(SHOWN, steps=[{'args': {'password': M, 'x': 1}}])
    with pytest.raises(exception.Invalid) as error:
        json_patch.keep_masked(patched, STORED, SHOWN, '/f')
    assert '/f/steps/0/args/password' in error.value.format_message()


@pytest.mark.parametrize('patched', [
    {'token': M}, {'user': M}, {'nested': {'other': M}}, {'list': [M]}])
def test_mask_without_secret_refused(patched):
    with pytest.raises(exception.Invalid):
        json_patch.keep_masked(dict(SHOWN, **patched), STORED, SHOWN, '/f')
