# Names SQLAlchemy's documentation uses in its examples without making them
# (docs/protocol.md §7 Stage 2, prelude): the MetaData its docstrings' Table
# examples take, and an engine, a connection and a session on an in-memory
# SQLite database, as its tutorials make them. An example that uses one of
# these names unbound, and whose page, imports and aliases do not give it,
# gets the statement that binds it after its import lines.
from sqlalchemy import MetaData, create_engine
from sqlalchemy.orm import Session

metadata = MetaData()
metadata_obj = MetaData()
engine = create_engine("sqlite://")
conn = create_engine("sqlite://").connect()
connection = create_engine("sqlite://").connect()
session = Session(create_engine("sqlite://"))
