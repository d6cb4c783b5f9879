"""Neural-network methods (DBPNN)."""
