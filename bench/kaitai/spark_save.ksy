# Kaitai Struct description of the SparkEngine .spark_save layout (formats/README.md §1.1), for the
# benchmark: the generic parser a team would reach for. Compiled to JavaScript by
# bench/kaitai/compile.js and run with node by bench/kaitai/parse.js. It parses v3/v4 files and
# v1/v2 files that have a custom-state count; it checks nothing (no limits, no duplicates, no
# CRC): that is what a generic parser gives you.
meta:
  id: spark_save
  endian: le
seq:
  - id: magic
    contents: SPRK
  - id: version
    type: u4
  - id: meta_size
    type: u4
  - id: metadata
    size: meta_size
  - id: entity_count
    type: u4
  - id: entities
    type: entity
    repeat: expr
    repeat-expr: entity_count
  - id: custom_state_count
    type: u4
  - id: custom_state
    type: pair
    repeat: expr
    repeat-expr: custom_state_count
  - id: checksum
    type: u4
    if: version >= 4
types:
  lstr:
    seq:
      - id: len
        type: u2
      - id: value
        size: len
  pair:
    seq:
      - id: key
        type: lstr
      - id: value
        type: lstr
  component:
    seq:
      - id: type_name
        type: lstr
      - id: property_count
        type: u2
      - id: properties
        type: pair
        repeat: expr
        repeat-expr: property_count
  entity:
    seq:
      - id: name
        type: lstr
      - id: component_count
        type: u2
      - id: components
        type: component
        repeat: expr
        repeat-expr: component_count
