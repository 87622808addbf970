"""The workshop behind the table: tray rendering, synthetic and real training data, training,
teaching and evaluation. Nothing the table runs at play time imports this package; only the
simulated tray, the screenshots, ``dicetray train``/``teach``/``eval``/``bench`` do."""
