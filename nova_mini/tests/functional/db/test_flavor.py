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

"""Flavor and FlavorList against real databases (SQLite and PostgreSQL):
create, read, list, extra specs, access, destroy."""

import datetime

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini.objects.compute import flavor_extra_specs as specs_obj


@pytest.fixture
def admin():
    return nm_context.get_admin_context()


@pytest.fixture
def demo():
    return nm_context.RequestContext(user_id='demo', project_id='demo',
                                     roles=['member', 'reader'],
                                     is_admin=False)


def _make(context, flavorid, name=None, **values):
    flavor = objects.Flavor(context, flavorid=flavorid,
                            name=name or 'name-%s' % flavorid)
    flavor.memory_mb = values.pop('memory_mb', 512)
    flavor.vcpus = values.pop('vcpus', 1)
    flavor.root_gb = values.pop('root_gb', 1)
    for key, value in values.items():
        setattr(flavor, key, value)
    flavor.create()
    return flavor


def _ids(flavor_list):
    return [flavor.flavorid for flavor in flavor_list]


# Create and read

def test_create_applies_defaults(db, admin):
    flavor = _make(admin, 'f1', description=None)
    assert flavor.id is not None
    assert flavor.ephemeral_gb == 0
    assert flavor.swap == 0
    assert flavor.rxtx_factor == 1.0
    assert flavor.is_public is True
    assert flavor.disabled is False
    assert flavor.vcpu_weight is None
    assert flavor.extra_specs == {}
    assert flavor.projects == []
    assert flavor.created_at is not None
    assert not flavor.obj_what_changed()


def test_get_by_flavor_id(db, admin):
    _make(admin, 'f1', 'tiny', memory_mb=256, vcpus=2, root_gb=3,
          ephemeral_gb=4, swap=5, rxtx_factor=1.5, is_public=False,
          description='desc', extra_specs={'b': '2', 'a': '1'},
          projects=['p1'])
    flavor = objects.Flavor.get_by_flavor_id(admin, 'f1')
    assert (flavor.flavorid, flavor.name, flavor.memory_mb, flavor.vcpus,
            flavor.root_gb, flavor.ephemeral_gb, flavor.swap,
            flavor.rxtx_factor, flavor.is_public, flavor.description) == (
        'f1', 'tiny', 256, 2, 3, 4, 5, 1.5, False, 'desc')
    assert flavor.extra_specs == {'a': '1', 'b': '2'}
    assert list(flavor.extra_specs) == ['a', 'b']
    assert not flavor.obj_what_changed()
    # The access list is loaded when asked for.
    assert not flavor.obj_attr_is_set('projects')
    assert flavor.projects == ['p1']


def test_get_missing(db, admin):
    with pytest.raises(exception.FlavorNotFound) as caught:
        objects.Flavor.get_by_flavor_id(admin, 'nope')
    assert caught.value.format_message() == 'Flavor nope could not be found.'


def test_ids_and_names_are_case_sensitive(db, admin):
    _make(admin, 'l-a', 'alpha')
    _make(admin, 'L-A', 'ALPHA')
    assert objects.Flavor.get_by_flavor_id(admin, 'L-A').name == 'ALPHA'


def test_unicode_and_long_values(db, admin):
    name = 'n' * 254 + '\u00e9'
    _make(admin, 'f' * 255, name, description='d' * 65535,
          extra_specs={'k' * 255: 'v' * 255})
    flavor = objects.Flavor.get_by_flavor_id(admin, 'f' * 255)
    assert flavor.name == name
    assert len(flavor.description) == 65535
    assert flavor.extra_specs == {'k' * 255: 'v' * 255}


def test_private_flavors_are_hidden_from_other_projects(db, admin, demo):
    _make(admin, 'pub')
    private = _make(admin, 'priv', is_public=False)
    objects.Flavor.get_by_flavor_id(demo, 'pub')
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(demo, 'priv')
    private.add_access('demo')
    assert objects.Flavor.get_by_flavor_id(demo, 'priv').flavorid == 'priv'


def test_save_description(db, admin):
    flavor = _make(admin, 'f1')
    flavor.description = 'new'
    flavor.save()
    assert not flavor.obj_what_changed()
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').description == 'new'
    flavor.description = None
    flavor.save()
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').description is None


def test_save_refuses_extra_specs(db, admin):
    flavor = _make(admin, 'f1')
    flavor.extra_specs = {'a': 'b'}
    with pytest.raises(exception.Invalid):
        flavor.save()
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {}


# Duplicates and failed writes

def test_duplicate_name(db, admin):
    _make(admin, 'f1', 'same')
    with pytest.raises(exception.FlavorExists) as caught:
        _make(admin, 'f2', 'same')
    assert caught.value.format_message() == (
        'Flavor with name same already exists.')


def test_duplicate_flavorid(db, admin):
    _make(admin, 'f1', 'one')
    with pytest.raises(exception.FlavorIdExists) as caught:
        _make(admin, 'f1', 'two')
    assert caught.value.format_message() == (
        'Flavor with ID f1 already exists.')


def test_duplicate_name_and_flavorid_report_the_name(db, admin):
    # As Nova does (observed on its API).
    _make(admin, 'f1', 'one')
    with pytest.raises(exception.FlavorExists):
        _make(admin, 'f1', 'one')


def test_failed_create_leaves_nothing(db, admin):
    _make(admin, 'f1', 'one')
    before = db.row_counts()
    with pytest.raises(exception.FlavorIdExists):
        _make(admin, 'f1', 'two', extra_specs={'a': 'b'}, projects=['p'])
    assert db.row_counts() == before


def test_failure_after_the_flavor_row_rolls_it_back(db, admin):
    # The flavor row is written, then its access rows fail (the same
    # project twice): the whole create must be undone.
    with pytest.raises(exception.Conflict):
        _make(admin, 'f1', 'one', extra_specs={'a': 'b'},
              projects=['p', 'p'])
    assert db.filled_tables() == {}
    # And the names are free.
    _make(admin, 'f1', 'one')


# Lists

@pytest.fixture
def four(db, admin):
    """l-a .. l-d as in the API reference; l-c is private."""
    _make(admin, 'l-a', 'alpha', memory_mb=512, root_gb=1,
          description='first flavor')
    _make(admin, 'l-b', 'bravo', memory_mb=1024, root_gb=10, swap=512)
    _make(admin, 'l-c', 'charlie', memory_mb=2048, root_gb=20,
          is_public=False)
    _make(admin, 'l-d', 'delta', memory_mb=4096, root_gb=2048,
          extra_specs={'hw:cpu_policy': 'dedicated'})


def test_list_all_for_admins(four, admin):
    flavors = objects.FlavorList.get_all(admin)
    assert _ids(flavors) == ['l-a', 'l-b', 'l-c', 'l-d']
    assert flavors[3].extra_specs == {'hw:cpu_policy': 'dedicated'}
    assert all(not f.obj_what_changed() for f in flavors)


@pytest.mark.parametrize('is_public, expected', [
    (True, ['l-a', 'l-b', 'l-d']),
    (False, ['l-c']),
    (None, ['l-a', 'l-b', 'l-c', 'l-d']),
])
def test_list_is_public_filter(four, admin, is_public, expected):
    flavors = objects.FlavorList.get_all(admin,
                                         filters={'is_public': is_public})
    assert _ids(flavors) == expected


def test_list_public_includes_shared_private_flavors(four, admin):
    objects.Flavor.get_by_flavor_id(admin, 'l-c').add_access('admin')
    admin_of_project = nm_context.RequestContext(
        user_id='admin', project_id='admin', is_admin=True)
    flavors = objects.FlavorList.get_all(admin_of_project,
                                         filters={'is_public': True})
    assert _ids(flavors) == ['l-a', 'l-b', 'l-c', 'l-d']


def test_list_for_a_project(four, admin, demo):
    assert _ids(objects.FlavorList.get_all(demo)) == ['l-a', 'l-b', 'l-d']
    objects.Flavor.get_by_flavor_id(admin, 'l-c').add_access('demo')
    assert _ids(objects.FlavorList.get_all(demo)) == [
        'l-a', 'l-b', 'l-c', 'l-d']


@pytest.mark.parametrize('filters, expected', [
    ({'min_memory_mb': 1024}, ['l-b', 'l-c', 'l-d']),
    ({'min_memory_mb': -1}, ['l-a', 'l-b', 'l-c', 'l-d']),
    ({'min_root_gb': 2048}, ['l-d']),
    ({'min_memory_mb': 1024, 'min_root_gb': 11}, ['l-c', 'l-d']),
    ({'min_memory_mb': 10 ** 6}, []),
    ({'disabled': False}, ['l-a', 'l-b', 'l-c', 'l-d']),
    ({'disabled': True}, []),
])
def test_list_filters(four, admin, filters, expected):
    assert _ids(objects.FlavorList.get_all(admin, filters=filters)) == \
        expected


@pytest.mark.parametrize('sort_key, sort_dir, expected', [
    ('flavorid', 'asc', ['l-a', 'l-b', 'l-c', 'l-d']),
    ('flavorid', 'desc', ['l-d', 'l-c', 'l-b', 'l-a']),
    ('name', 'desc', ['l-d', 'l-c', 'l-b', 'l-a']),
    ('memory_mb', 'desc', ['l-d', 'l-c', 'l-b', 'l-a']),
    ('root_gb', 'asc', ['l-a', 'l-b', 'l-c', 'l-d']),
    ('swap', 'desc', ['l-b', 'l-d', 'l-c', 'l-a']),
    ('is_public', 'asc', ['l-c', 'l-a', 'l-b', 'l-d']),
    ('vcpus', 'asc', ['l-a', 'l-b', 'l-c', 'l-d']),
])
def test_list_sorting(four, admin, sort_key, sort_dir, expected):
    # Ties are broken by the internal id (creation order), in the same
    # direction, as Nova does.
    flavors = objects.FlavorList.get_all(admin, sort_key=sort_key,
                                         sort_dir=sort_dir)
    assert _ids(flavors) == expected


def test_list_sorting_by_every_key(four, admin):
    from nova_mini.objects.compute import flavor as flavor_module
    for sort_key in flavor_module.SORT_KEYS:
        for sort_dir in ('asc', 'desc'):
            flavors = objects.FlavorList.get_all(admin, sort_key=sort_key,
                                                 sort_dir=sort_dir)
            assert sorted(_ids(flavors)) == ['l-a', 'l-b', 'l-c', 'l-d']


def test_list_invalid_sort_key(four, admin):
    with pytest.raises(exception.InvalidSortKey):
        objects.FlavorList.get_all(admin, sort_key='ram')


def test_pagination(four, admin):
    seen = []
    marker = None
    while True:
        page = objects.FlavorList.get_all(admin, limit=2, marker=marker)
        if not page:
            break
        assert len(page) <= 2
        seen.extend(_ids(page))
        marker = page[-1].flavorid
    assert seen == ['l-a', 'l-b', 'l-c', 'l-d']


def test_pagination_with_sorting_and_filters(four, admin):
    page = objects.FlavorList.get_all(
        admin, filters={'min_memory_mb': 600}, sort_key='memory_mb',
        sort_dir='desc', limit=2)
    assert _ids(page) == ['l-d', 'l-c']
    page = objects.FlavorList.get_all(
        admin, filters={'min_memory_mb': 600}, sort_key='memory_mb',
        sort_dir='desc', limit=2, marker='l-c')
    assert _ids(page) == ['l-b']


def test_limit_zero(four, admin):
    assert _ids(objects.FlavorList.get_all(admin, limit=0)) == []


def test_marker_not_found(four, admin):
    with pytest.raises(exception.MarkerNotFound) as caught:
        objects.FlavorList.get_all(admin, marker='nope')
    assert caught.value.format_message() == 'marker [nope] not found'


def test_private_marker_is_not_found_for_others(four, demo):
    with pytest.raises(exception.MarkerNotFound):
        objects.FlavorList.get_all(demo, marker='l-c')


# Extra specs

def test_extra_specs_merge(db, admin):
    flavor = _make(admin, 'f1', extra_specs={'a': '1', 'b': '2'})
    flavor.update_extra_specs({'b': '20', 'c': '3'})
    assert flavor.extra_specs == {'a': '1', 'b': '20', 'c': '3'}
    assert not flavor.obj_what_changed()
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'a': '1', 'b': '20', 'c': '3'}


def test_extra_specs_merge_same_value_and_empty(db, admin):
    flavor = _make(admin, 'f1', extra_specs={'a': '1'})
    flavor.update_extra_specs({'a': '1'})
    flavor.update_extra_specs({})
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'a': '1'}


def test_merge_extra_specs_by_flavor_id(db, admin, demo):
    _make(admin, 'f1', extra_specs={'a': '1', 'b': '2'})
    private = _make(admin, 'priv', is_public=False)
    specs_obj.merge_extra_specs(admin, 'f1', {'b': '20', 'c': '3'})
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'a': '1', 'b': '20', 'c': '3'}
    for context, flavor_id in ((admin, 'nope'), (demo, 'priv')):
        with pytest.raises(exception.FlavorNotFound):
            specs_obj.merge_extra_specs(context, flavor_id, {'k': 'v'})
    private.add_access('demo')
    specs_obj.merge_extra_specs(demo, 'priv', {'k': 'v'})
    assert objects.Flavor.get_by_flavor_id(admin, 'priv').extra_specs == {
        'k': 'v'}


def test_merge_extra_specs_unchanged_writes_nothing(db, admin):
    _make(admin, 'f1', extra_specs={'a': '1', 'b': '2'})
    statements = []

    def record(conn, cursor, statement, *args):
        # Statements, not transaction control (SQLite's BEGIN).
        if not statement.upper().startswith(('BEGIN', 'COMMIT',
                                             'ROLLBACK')):
            statements.append(statement.split()[0].upper())

    engine = db_api.get_engine()
    one_statement = engine.dialect.name == 'postgresql'
    written = _row_versions(engine)
    sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        # Stored already (a subset, the same values): no write.
        specs_obj.merge_extra_specs(admin, 'f1', {'b': '2'})
        specs_obj.merge_extra_specs(admin, 'f1', {})
        # PostgreSQL: the read and the write are one statement (which
        # writes nothing here); elsewhere one read each.
        assert statements == (['WITH', 'SELECT'] if one_statement
                              else ['SELECT', 'SELECT'])
        assert _row_versions(engine) == written
        # One value differs: every key of the merge written by one
        # statement (an INSERT that replaces stored keys), after the
        # read or in the same statement.
        del statements[:]
        specs_obj.merge_extra_specs(admin, 'f1', {'a': '1', 'b': '3'})
        assert statements == (['WITH'] if one_statement
                              else ['SELECT', 'INSERT'])
    finally:
        sa.event.remove(engine, 'before_cursor_execute', record)
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'a': '1', 'b': '3'}
    if written:
        rewritten = _row_versions(engine)
        assert all(rewritten[key] != written[key] for key in ('a', 'b'))


def _row_versions(engine):
    """PostgreSQL: each extra spec's row version (xmin, new on every write
    of the row); elsewhere None.
    """
    if engine.dialect.name != 'postgresql':
        return None
    with engine.connect() as conn:
        return dict(conn.execute(sa.text(
            'SELECT key, xmin::text FROM flavor_extra_specs')).all())


def test_merge_extra_specs_one_connection(db, admin):
    # The read and the write of a merge share one pooled connection (one
    # checkout, one transaction context): the cost of a changing POST.
    _make(admin, 'f1', extra_specs={'a': '1'})
    checkouts = []
    pool = db_api.get_engine().pool

    def checkout(*args):
        checkouts.append(args)

    sa.event.listen(pool, 'checkout', checkout)
    try:
        specs_obj.merge_extra_specs(admin, 'f1', {'a': '2', 'b': '1'})
        specs_obj.merge_extra_specs(admin, 'f1', {'a': '2'})
    finally:
        sa.event.remove(pool, 'checkout', checkout)
    assert len(checkouts) == 2
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'a': '2', 'b': '1'}


def test_merge_extra_specs_into_a_deleted_flavor(db, admin):
    # The flavor goes between the read of its row id and the write: not
    # found (404), not the foreign key's error (500).
    flavor = _make(admin, 'f1', extra_specs={'a': '1'})
    flavor.destroy()
    with pytest.raises(exception.FlavorNotFound):
        flavor.update_extra_specs({'a': '2', 'b': '1'})


def test_merge_extra_specs_updated_at(db, admin):
    # A replaced value stamps its row's updated_at; a new key has none.
    # The merge's time is converted for the driver once, as the column's
    # type would (SQLite: text the ORM reads back as a datetime).
    _make(admin, 'f1', extra_specs={'a': '1'})
    before = timeutils.utcnow()
    specs_obj.merge_extra_specs(admin, 'f1', {'a': '2', 'b': '1'})
    after = timeutils.utcnow()
    engine = db_api.get_engine()
    with engine.connect() as conn:
        rows = {key: (created, updated) for key, created, updated in
                conn.execute(sa.select(
                    models.FlavorExtraSpec.key,
                    models.FlavorExtraSpec.created_at,
                    models.FlavorExtraSpec.updated_at)).all()}
    assert rows['a'][1] is not None and rows['b'][1] is None
    # MariaDB's DATETIME keeps whole seconds.
    second = datetime.timedelta(seconds=1)
    assert (before - second <= rows['a'][1] <= after + second
            and rows['b'][0] == rows['a'][1])


def test_list_records_match_the_objects(db, admin):
    _make(admin, 'f1', extra_specs={'b': '2', 'a': '1'}, vcpu_weight=3,
          description='one')
    _make(admin, 'f2', rxtx_factor=2, swap=512)
    records = flavor_obj.list_flavors(admin)
    flavors = objects.FlavorList.get_all(admin)
    # Timestamps aside: the records' are naive, as the database gives them.
    names = [name for name in flavor_obj.FlavorRecord._fields
             if name not in ('created_at', 'updated_at')]
    assert [[getattr(record, name) for name in names]
            for record in records] == [
        [getattr(flavor, name) for name in names] for flavor in flavors]
    assert records[0].created_at == flavors[0].created_at.replace(
        tzinfo=None)
    assert list(records[0].extra_specs) == ['a', 'b']
    assert type(records[1].rxtx_factor) is float


def test_extra_specs_are_per_flavor(db, admin):
    one = _make(admin, 'f1')
    two = _make(admin, 'f2')
    one.update_extra_specs({'k': 'one'})
    two.update_extra_specs({'k': 'two'})
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'k': 'one'}
    assert objects.Flavor.get_by_flavor_id(admin, 'f2').extra_specs == {
        'k': 'two'}


def test_extra_spec_delete(db, admin):
    flavor = _make(admin, 'f1', extra_specs={'a': '1', 'b': '2'})
    flavor.delete_extra_spec('a')
    assert flavor.extra_specs == {'b': '2'}
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {
        'b': '2'}
    with pytest.raises(exception.FlavorExtraSpecsNotFound) as caught:
        flavor.delete_extra_spec('a')
    assert caught.value.format_message() == (
        'Flavor f1 has no extra specs with key a.')


# Access

def test_access_add_remove(db, admin):
    flavor = _make(admin, 'f1', is_public=False)
    flavor.add_access('p2')
    flavor.add_access('p1')
    fresh = objects.Flavor.get_by_flavor_id(admin, 'f1')
    assert fresh.projects == ['p1', 'p2']
    fresh.remove_access('p2')
    assert fresh.projects == ['p1']
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').projects == ['p1']


def test_access_duplicate(db, admin):
    flavor = _make(admin, 'f1', is_public=False)
    flavor.add_access('p1')
    with pytest.raises(exception.FlavorAccessExists) as caught:
        objects.Flavor.get_by_flavor_id(admin, 'f1').add_access('p1')
    assert caught.value.format_message() == (
        'Flavor access already exists for flavor f1 and project p1 '
        'combination.')
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').projects == ['p1']


def test_access_remove_missing(db, admin):
    flavor = _make(admin, 'f1', is_public=False)
    with pytest.raises(exception.FlavorAccessNotFound) as caught:
        flavor.remove_access('p1')
    assert caught.value.format_message() == (
        'Flavor access not found for f1 / p1 combination.')


def test_access_to_public_flavors(db, admin):
    flavor = _make(admin, 'f1')
    with pytest.raises(exception.FlavorAccessPublic):
        flavor.add_access('p1')
    # Before microversion 2.7 the API allows it.
    flavor.add_access('p1', allow_public=True)
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').projects == ['p1']


def test_same_project_on_two_flavors(db, admin):
    _make(admin, 'f1', is_public=False).add_access('p1')
    _make(admin, 'f2', is_public=False).add_access('p1')
    for flavorid in ('f1', 'f2'):
        assert objects.Flavor.get_by_flavor_id(admin, flavorid).projects == \
            ['p1']


# Destroy

def test_destroy_removes_the_children(db, admin):
    keep = _make(admin, 'keep', is_public=False, extra_specs={'a': '1'},
                 projects=['p1'])
    gone = _make(admin, 'gone', is_public=False,
                 extra_specs={'a': '1', 'b': '2'}, projects=['p1', 'p2'])
    gone.destroy()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(admin, 'gone')
    assert db.filled_tables() == {'flavors': 1, 'flavor_extra_specs': 1,
                                  'flavor_projects': 1}
    with db.engine.connect() as connection:
        for model in (models.FlavorExtraSpec, models.FlavorProject):
            flavor_ids = set(connection.execute(
                sa.select(model.__table__.c.flavor_id)).scalars())
            assert flavor_ids == {keep.id}
    with pytest.raises(exception.FlavorNotFound):
        gone.destroy()


def test_destroyed_ids_and_names_can_be_used_again(db, admin):
    _make(admin, 'f1', 'one', extra_specs={'a': '1'}).destroy()
    again = _make(admin, 'f1', 'one')
    assert objects.Flavor.get_by_flavor_id(admin, 'f1').extra_specs == {}
    assert again.id is not None


def test_the_schema_cascades_too(db, admin):
    flavor = _make(admin, 'f1', is_public=False, extra_specs={'a': '1'},
                   projects=['p1'])
    # A delete that bypasses the object layer leaves no orphans either.
    with db.engine.begin() as connection:
        connection.execute(models.Flavor.__table__.delete().where(
            models.Flavor.__table__.c.id == flavor.id))
    assert db.filled_tables() == {}
