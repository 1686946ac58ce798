"""SQLAlchemy models of nova_mini's database.

The alembic migrations in nova_mini/db/migrations build the same schema; a
test compares the two on every supported backend.
"""

from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm


class Base(models.TimestampMixin, models.ModelBase, orm.DeclarativeBase):
    pass


class Flavor(Base):
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavorid = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer, nullable=False)
    ephemeral_gb = sa.Column(sa.Integer, nullable=False, default=0)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, nullable=False, default=1.0)
    vcpu_weight = sa.Column(sa.Integer, nullable=True)
    is_public = sa.Column(sa.Boolean, nullable=False, default=True)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    description = sa.Column(sa.Text, nullable=True)

    extra_specs = orm.relationship(
        'FlavorExtraSpec', cascade='all, delete-orphan',
        passive_deletes=True, lazy='raise')
    projects = orm.relationship(
        'FlavorProject', cascade='all, delete-orphan',
        passive_deletes=True, lazy='raise')


class FlavorExtraSpec(Base):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer,
                          sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                          nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


class FlavorProject(Base):
    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
        sa.Index('flavor_projects_project_id_idx', 'project_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer,
                          sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
