"""Flavor: the size and extra specs of a server, with project access."""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
import sqlalchemy as sa
from sqlalchemy import orm

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields

# Columns a flavor list may be sorted by (Nova's set).
SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb',
             'flavorid', 'id', 'is_public', 'memory_mb', 'name', 'root_gb',
             'rxtx_factor', 'swap', 'updated_at', 'vcpu_weight', 'vcpus')

_COLUMNS = ('id', 'flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb',
            'ephemeral_gb', 'swap', 'rxtx_factor', 'vcpu_weight',
            'is_public', 'disabled', 'description', 'created_at',
            'updated_at')


def _visible_query(context):
    """Flavors the caller may see: all for admins, else public ones and the
    private ones shared with the caller's project.
    """
    query = context.session.query(models.Flavor).options(
        orm.selectinload(models.Flavor.extra_specs))
    if not context.is_admin:
        query = query.filter(sa.or_(
            models.Flavor.is_public.is_(True),
            models.Flavor.projects.any(project_id=context.project_id)))
    return query


@db_api.context_manager.reader
def _get_by_flavor_id(context, flavor_id):
    row = _visible_query(context).filter_by(flavorid=flavor_id).first()
    if row is None:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return row


@db_api.context_manager.reader
def _get_projects(context, flavor_db_id):
    rows = context.session.query(models.FlavorProject.project_id).filter_by(
        flavor_id=flavor_db_id).order_by(models.FlavorProject.project_id)
    return [project_id for project_id, in rows]


@db_api.context_manager.writer
def _create(context, values, extra_specs, projects):
    row = models.Flavor(**values)
    row.extra_specs = [models.FlavorExtraSpec(key=k, value=v)
                       for k, v in extra_specs.items()]
    row.projects = [models.FlavorProject(project_id=p) for p in projects]
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry as exc:
        if 'flavorid' in exc.columns:
            raise exception.FlavorIdExists(flavor_id=values['flavorid'])
        raise exception.FlavorExists(name=values['name'])
    return row


@db_api.context_manager.writer
def _update(context, flavor_db_id, values):
    count = context.session.query(models.Flavor).filter_by(
        id=flavor_db_id).update(values, synchronize_session=False)
    if not count:
        raise exception.FlavorNotFound(flavor_id=flavor_db_id)


@db_api.context_manager.writer
def _destroy(context, flavor_db_id, flavor_id):
    session = context.session
    # Children first: the schema cascades too, but not every SQLite
    # connection has foreign keys switched on.
    for model in (models.FlavorExtraSpec, models.FlavorProject):
        session.query(model).filter_by(flavor_id=flavor_db_id).delete(
            synchronize_session=False)
    if not session.query(models.Flavor).filter_by(id=flavor_db_id).delete(
            synchronize_session=False):
        raise exception.FlavorNotFound(flavor_id=flavor_id)


@db_api.context_manager.writer
def _merge_extra_specs(context, flavor_db_id, specs):
    session = context.session
    existing = {row.key: row for row in session.query(
        models.FlavorExtraSpec).filter(
            models.FlavorExtraSpec.flavor_id == flavor_db_id,
            models.FlavorExtraSpec.key.in_(list(specs)))}
    for key, value in specs.items():
        if key in existing:
            existing[key].value = value
        else:
            session.add(models.FlavorExtraSpec(
                flavor_id=flavor_db_id, key=key, value=value))
    session.flush()


@db_api.context_manager.writer
def _delete_extra_spec(context, flavor_db_id, flavor_id, key):
    count = context.session.query(models.FlavorExtraSpec).filter_by(
        flavor_id=flavor_db_id, key=key).delete(synchronize_session=False)
    if not count:
        raise exception.FlavorExtraSpecsNotFound(flavor_id=flavor_id,
                                                 extra_specs_key=key)


@db_api.context_manager.writer
def _add_project(context, flavor_db_id, flavor_id, project_id):
    context.session.add(models.FlavorProject(flavor_id=flavor_db_id,
                                             project_id=project_id))
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.FlavorAccessExists(flavor_id=flavor_id,
                                           project_id=project_id)


@db_api.context_manager.writer
def _remove_project(context, flavor_db_id, flavor_id, project_id):
    count = context.session.query(models.FlavorProject).filter_by(
        flavor_id=flavor_db_id, project_id=project_id).delete(
            synchronize_session=False)
    if not count:
        raise exception.FlavorAccessNotFound(flavor_id=flavor_id,
                                             project_id=project_id)


@base.NovaMiniObjectRegistry.register
class Flavor(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A flavor; ``projects`` (its access list) is loaded on demand."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'is_public': fields.BooleanField(),
        'disabled': fields.BooleanField(),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(),
        'projects': fields.ListOfStringsField(),
    }

    @classmethod
    def _from_db_object(cls, context, flavor, row):
        for name in _COLUMNS:
            setattr(flavor, name, getattr(row, name))
        flavor.extra_specs = {spec.key: spec.value for spec in sorted(
            row.extra_specs, key=lambda spec: spec.key)}
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    def obj_load_attr(self, attrname):
        if attrname != 'projects':
            raise NotImplementedError('Cannot load %s on demand' % attrname)
        self.projects = _get_projects(self._context, self.id)
        self.obj_reset_changes(['projects'])

    @classmethod
    def get_by_flavor_id(cls, context, flavor_id):
        return cls._from_db_object(context, cls(),
                                   _get_by_flavor_id(context, flavor_id))

    def create(self):
        values = self.obj_get_changes()
        extra_specs = values.pop('extra_specs', {})
        projects = values.pop('projects', [])
        values.setdefault('ephemeral_gb', 0)
        values.setdefault('swap', 0)
        values.setdefault('rxtx_factor', 1.0)
        values.setdefault('is_public', True)
        values.setdefault('disabled', False)
        row = _create(self._context, values, extra_specs, projects)
        self._from_db_object(self._context, self, row)
        self.projects = list(projects)
        self.obj_reset_changes(['projects'])

    def save(self):
        """Store changed scalar fields (extra specs and access have their
        own methods, which write at once).
        """
        values = self.obj_get_changes()
        for name in ('extra_specs', 'projects'):
            if values.pop(name, None) is not None:
                raise exception.Invalid(
                    'Use the %s methods to change %s' % (name, name))
        if values:
            _update(self._context, self.id, values)
        self.obj_reset_changes()

    def destroy(self):
        _destroy(self._context, self.id, self.flavorid)

    def update_extra_specs(self, specs):
        """Add or replace ``specs`` (str to str) in one transaction."""
        _merge_extra_specs(self._context, self.id, specs)
        merged = dict(self.extra_specs)
        merged.update(specs)
        self.extra_specs = merged
        self.obj_reset_changes(['extra_specs'])

    def delete_extra_spec(self, key):
        _delete_extra_spec(self._context, self.id, self.flavorid, key)
        remaining = dict(self.extra_specs)
        remaining.pop(key, None)
        self.extra_specs = remaining
        self.obj_reset_changes(['extra_specs'])

    def add_access(self, project_id, allow_public=False):
        if self.is_public and not allow_public:
            raise exception.FlavorAccessPublic()
        _add_project(self._context, self.id, self.flavorid, project_id)
        self.obj_reset_changes(['projects'])
        if self.obj_attr_is_set('projects'):
            self.projects = self.projects + [project_id]
            self.obj_reset_changes(['projects'])

    def remove_access(self, project_id):
        _remove_project(self._context, self.id, self.flavorid, project_id)
        if self.obj_attr_is_set('projects'):
            self.projects = [p for p in self.projects if p != project_id]
            self.obj_reset_changes(['projects'])


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker):
    query = _visible_query(context)
    if filters.get('is_public') is not None:
        condition = models.Flavor.is_public.is_(filters['is_public'])
        if filters['is_public'] and context.project_id is not None:
            condition = sa.or_(condition, models.Flavor.projects.any(
                project_id=context.project_id))
        query = query.filter(condition)
    if filters.get('disabled') is not None:
        query = query.filter(models.Flavor.disabled.is_(filters['disabled']))
    if filters.get('min_memory_mb') is not None:
        query = query.filter(
            models.Flavor.memory_mb >= filters['min_memory_mb'])
    if filters.get('min_root_gb') is not None:
        query = query.filter(models.Flavor.root_gb >= filters['min_root_gb'])
    marker_row = None
    if marker is not None:
        marker_row = _visible_query(context).filter_by(
            flavorid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    if sort_key not in SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    try:
        query = sqlalchemyutils.paginate_query(
            query, models.Flavor, limit, [sort_key, 'id'], marker=marker_row,
            sort_dir=sort_dir)
    except db_exc.InvalidSortKey:
        raise exception.InvalidSortKey(sort_key=sort_key)
    return query.all()


@base.NovaMiniObjectRegistry.register
class FlavorList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='flavorid',
                sort_dir='asc', limit=None, marker=None):
        rows = _get_all(context, filters or {}, sort_key, sort_dir, limit,
                        marker)
        result = cls(context)
        result.objects = [Flavor._from_db_object(context, Flavor(), row)
                          for row in rows]
        result.obj_reset_changes()
        return result
