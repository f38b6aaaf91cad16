"""Strategy, preset, the rules text (editable, with reset to the preset), archive date, output language."""
from __future__ import annotations

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import list_presets, load_preset
from precis.engine.summary.strategies import STRATEGIES


class RulesPanel(QWidget):
    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.strategy = QComboBox(self)
        self.strategy.setObjectName("strategySelector")
        self.strategy.addItem("auto", "auto")
        self.strategy.setItemData(0, "The default for the model's size (resources/model_profiles.json)", 3)
        for name, strategy in STRATEGIES.items():
            self.strategy.addItem(name, name)
            self.strategy.setItemData(self.strategy.count() - 1, strategy.title, 3)  # tooltip role
        form.addRow("Strategy", self.strategy)
        self.preset = QComboBox(self)
        self.preset.setObjectName("presetSelector")
        for p in list_presets():
            self.preset.addItem(p.title, p.name)
            self.preset.setItemData(self.preset.count() - 1, p.description, 3)  # tooltip role
        form.addRow("Preset", self.preset)
        self.date = QDateEdit(QDate.currentDate(), self)
        self.date.setObjectName("archiveDate")
        self.date.setDisplayFormat("yyyy-MM-dd")
        self.date.setCalendarPopup(True)
        form.addRow("Archive date", self.date)
        self.language = QLineEdit(self)
        self.language.setObjectName("outputLanguage")
        self.language.setPlaceholderText("the document's own")
        form.addRow("Output language", self.language)
        layout.addLayout(form)
        self.rules = QPlainTextEdit(self)
        self.rules.setObjectName("rulesEditor")
        self.rules.setMinimumHeight(90)
        layout.addWidget(self.rules, 1)
        row = QHBoxLayout()
        self.reset = QPushButton("Reset rules to the preset", self)
        self.reset.clicked.connect(self.reset_rules)
        row.addStretch(1)
        row.addWidget(self.reset)
        layout.addLayout(row)
        self.preset.currentIndexChanged.connect(self.reset_rules)
        for signal in (self.strategy.currentIndexChanged, self.date.dateChanged, self.language.textChanged,
                       self.rules.textChanged):
            signal.connect(lambda *_: self.changed.emit())
        self.reset_rules()

    def reset_rules(self) -> None:
        self.rules.setPlainText(load_preset(self.preset.currentData()).rules)

    def set_preset(self, name: str, rules: str = "") -> None:
        index = self.preset.findData(name)
        if index >= 0:
            self.preset.setCurrentIndex(index)
        if rules:
            self.rules.setPlainText(rules)

    def layout_for_run(self) -> RoundLayout:
        layout = RoundLayout(load_preset(self.preset.currentData()), self.date.date().toString("yyyy-MM-dd"),
                             self.language.text().strip() or None)
        rules = self.rules.toPlainText().strip()
        return layout.with_rules(rules) if rules else layout

    def apply_request(self, request) -> None:
        """Show a run request's strategy, preset, rules, date and language (a resumed run's)."""
        self.set_preset(request.preset, request.rules_text)
        self.strategy.setCurrentText(request.strategy)
        self.date.setDate(QDate.fromString(request.archive_date, "yyyy-MM-dd"))
        self.language.setText(request.language or "")

    @property
    def rules_overridden(self) -> bool:
        return self.rules.toPlainText().strip() != load_preset(self.preset.currentData()).rules.strip()
